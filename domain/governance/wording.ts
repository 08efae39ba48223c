/** How numbers and submitted values appear in the sentences the service returns and logs. */

/**
 * Integers as they are; fractions with at least two decimals, so a threshold of 0.8 reads "0.80" and
 * 0.7999 keeps every digit (rounding it would hide why it failed).
 */
export function formatNumber(value: unknown): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return String(value);
  if (Number.isInteger(value)) return String(value);
  const text = String(value);
  const decimals = text.includes('e') ? 2 : (text.split('.')[1]?.length ?? 0);
  return decimals < 2 ? value.toFixed(2) : text;
}

/** A submitted value quoted as JSON, so an empty or odd string is visible in the sentence. */
export function quote(value: unknown): string {
  return value === undefined ? 'undefined' : JSON.stringify(value);
}

/** What HTML would read as markup: each becomes a character reference, in text and in quoted attributes. */
export const HTML_REFERENCES: ReadonlyMap<string, string> = new Map([
  ['&', '&amp;'],
  ['<', '&lt;'],
  ['>', '&gt;'],
  ['"', '&quot;'],
  ["'", '&#39;'],
]);

const HTML_SIGNIFICANT = /[&<>"']/g;

/** Any string as HTML text or a quoted attribute's value that reads back as itself and opens nothing. */
export function escapeHtml(value: string): string {
  return value.replace(HTML_SIGNIFICANT, (char) => HTML_REFERENCES.get(char)!);
}
