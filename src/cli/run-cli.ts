import { ConfigError } from '../config.ts';
import { ValidationFailed } from '../lib/errors.ts';

/**
 * Runs a command-line tool's main function and exits with its code; expected failures
 * (bad configuration, invalid input) are printed as one line each, never a stack trace.
 */
export function runCli(main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (error) => {
      if (error instanceof ValidationFailed) {
        for (const [field, messages] of Object.entries(error.details.fieldErrors))
          process.stderr.write(`${field}: ${messages.join(' ')}\n`);
      } else if (error instanceof ConfigError) {
        process.stderr.write(`Configuration error: ${error.message}\n`);
      } else {
        process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      }
      process.exit(1);
    },
  );
}
