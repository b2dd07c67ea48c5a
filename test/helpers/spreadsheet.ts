/** The separators a spreadsheet may be told to split a CSV file on. */
export const SPREADSHEET_SEPARATORS = [',', ';', '\t'] as const;

export const separatorName = (separator: string) => ({ ',': 'comma', ';': 'semicolon', '\t': 'tab' })[separator] ?? separator;

/**
 * Every cell that would open as a formula when `csv` is split on `separator` with no regard
 * for quotes, the way a reader told to use another separator than the file's re-splits its
 * lines: at every line break and separator, each cell read past leading whitespace and
 * quotes. Readers that honour quotes start cells at a subset of these places, so an empty
 * answer holds for them too.
 */
export function formulaCells(csv: string, separator: string): string[] {
  return csv
    .split(/\r\n|\r|\n/)
    .flatMap((line) => line.split(separator))
    .filter((cell) => /^[\s"]*[=+\-@]/.test(cell));
}
