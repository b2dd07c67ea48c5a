import { expect } from 'chai';
import type { Response } from 'supertest';

/** Expects the contract's 400 body with errors on exactly `fields` and no form errors. */
export function expectValidationFailed(res: Response, fields: string[]): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(400);
  expect(res.body).to.have.all.keys('error', 'details');
  expect(res.body.error).to.equal('Validation failed');
  expect(res.body.details.formErrors).to.deep.equal([]);
  expect(res.body.details.fieldErrors).to.have.all.keys(...fields);
  for (const field of fields) {
    expect(res.body.details.fieldErrors[field]).to.be.an('array').that.is.not.empty;
    for (const message of res.body.details.fieldErrors[field]) expect(message).to.be.a('string').that.is.not.empty;
  }
}
