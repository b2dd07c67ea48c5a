/**
 * Where a spreadsheet may start a new cell inside a CSV text field, and what may stand
 * between that start and the cell's first character: whitespace a reader might trim and
 * quotes it might drop. A file saved with commas can be opened with semicolon or tab as the
 * separator; the reader then re-splits each raw line there, and quotes group only at the
 * start of a cell, so a cell can start after any of `,` `;` tab, or a line break, anywhere
 * in our text. (The whitespace excludes tab and line breaks: they start cells themselves.)
 */
const FORMULA_AT_A_CELL_START = /(^|[,;\t\r\n])((?:[^\S\t\r\n]|")*)(?=[=+\-@])/g;

/**
 * Text for a CSV cell that no spreadsheet runs as a formula, whichever of comma, semicolon
 * or tab it splits the file on: every =, +, - or @ that could begin a cell gets a `'` in
 * front (OWASP's advice for CSV injection), which spreadsheets show as text. Text that
 * could not begin a formula anywhere comes back unchanged.
 */
export function defuseFormulas(text: string): string {
  return text.replace(FORMULA_AT_A_CELL_START, "$1$2'");
}
