/**
 * The G3 detectors: secrets and personal data in a text, as findings (kind, category, offsets) that
 * never carry the matched text. `redact` replaces them in model output.
 */
import { type Finding, withoutOverlaps } from './finding';
import { detectPersonalData } from './personal';
import { detectSecrets } from './secrets';

export { countFindings, type Finding, type FindingCategory, type FindingCounts, redact } from './finding';
export { detectPersonalData, IBAN_LENGTHS, ibanValid, luhnValid, PERSONAL_KINDS } from './personal';
export { detectSecrets, SECRET_KINDS } from './secrets';

/** Every secret and personal datum in the text, in text order; one stretch of text is one finding. */
export function detectProtectedData(text: string): Finding[] {
  return withoutOverlaps([...detectSecrets(text), ...detectPersonalData(text)]);
}
