/**
 * G3 personal-data detectors: email addresses, phone numbers, payment card numbers and IBANs. A
 * pattern finds candidates; a check keeps only the ones that are what they look like (a card number
 * passes Luhn, an IBAN has its country's length and passes ISO 13616 mod 97, a phone number has as many
 * digits as a numbering plan allows), so order numbers, dates and version strings are not findings.
 */
import { type Finding, matches, withoutOverlaps } from './finding';

export const PERSONAL_KINDS: readonly string[] = ['iban', 'card_number', 'email', 'phone_number'];

/** The personal data in the text, in text order, one finding per stretch (an IBAN's digits are no phone number). */
export function detectPersonalData(text: string): Finding[] {
  const findings: Finding[] = [];
  if (/\d/.test(text)) {
    findIbans(text, findings);
    findCardNumbers(text, findings);
    findPhoneNumbers(text, findings);
  }
  if (text.includes('@')) findEmails(text, findings);
  return withoutOverlaps(findings);
}

// ---------------------------------------------------------------------------------------------- email

/** Local part, `@`, one or more DNS labels and a top-level domain of letters: `user@localhost` is not one. */
const EMAIL =
  /(?<![A-Za-z0-9._%+-])(?<local>[A-Za-z0-9._%+-]{1,64})@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?![A-Za-z0-9-])/g;

function findEmails(text: string, findings: Finding[]): void {
  for (const match of matches(EMAIL, text)) {
    const local = match.groups!.local!;
    // RFC 5321 dot-atoms: no leading, trailing or doubled dot.
    if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) continue;
    findings.push(finding('email', match.index, match.index + match[0].length));
  }
}

// ----------------------------------------------------------------------------------------------- card

/** A run of digit groups separated by single spaces or dashes: the candidates cards are looked for in. */
const DIGIT_RUN = /(?<![\d.,])\d+(?:[ -]\d+)*(?![\d])/g;

/**
 * Card numbers: 13 to 19 digits, written whole or in groups of 3 to 6 (4-4-4-4, Amex's 4-6-5, …),
 * starting with 2 to 6 (the issuer ranges of Visa, Mastercard, American Express, Discover, JCB,
 * Diners, UnionPay and Maestro; a millisecond timestamp starts with 1), not one repeated digit,
 * passing the Luhn check.
 */
function findCardNumbers(text: string, findings: Finding[]): void {
  for (const match of matches(DIGIT_RUN, text)) {
    const groups = groupsOf(match[0], match.index);
    const total = groups.reduce((sum, group) => sum + group.digits.length, 0);
    if (total < 13) continue;
    // Longest window first at each start, so a card followed by a year is found as the card.
    let from = 0;
    while (from < groups.length) {
      const card = cardFrom(groups, from);
      if (card === null) {
        from += 1;
        continue;
      }
      findings.push(finding('card_number', groups[from]!.start, groups[card]!.end));
      from = card + 1;
    }
  }
}

interface DigitGroup {
  digits: string;
  start: number;
  end: number;
}

function groupsOf(run: string, offset: number): DigitGroup[] {
  const groups: DigitGroup[] = [];
  let at = 0;
  for (const digits of run.split(/[ -]/)) {
    groups.push({ digits, start: offset + at, end: offset + at + digits.length });
    at += digits.length + 1;
  }
  return groups;
}

/**
 * The index of the last group of the longest card number starting at group `from`, or null: the
 * number is one group of 13 to 19 digits, or several groups of 3 to 6 ("1 2 3 4 …" is a list).
 */
function cardFrom(groups: readonly DigitGroup[], from: number): number | null {
  const first = groups[from]!.digits;
  if (first.length > 6) return first.length <= 19 && isCardNumber(first) ? from : null;
  let digits = '';
  let best: number | null = null;
  for (let to = from; to < groups.length; to++) {
    const group = groups[to]!.digits;
    if (group.length < 3 || group.length > 6) break;
    digits += group;
    if (digits.length > 19) break;
    if (digits.length >= 13 && isCardNumber(digits)) best = to;
  }
  return best;
}

function isCardNumber(digits: string): boolean {
  const first = digits.charCodeAt(0) - 48;
  if (first < 2 || first > 6) return false;
  if (/^(\d)\1*$/.test(digits)) return false;
  return luhnValid(digits);
}

/** The Luhn (mod 10) check over a string of digits. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let digit = digits.charCodeAt(i) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

// ----------------------------------------------------------------------------------------------- IBAN

/** IBAN length by country (the ISO 13616 IBAN registry kept by SWIFT, as of 2024). */
export const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BI: 27,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DJ: 27,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FK: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HN: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  LY: 25,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MN: 20,
  MR: 27,
  MT: 31,
  MU: 30,
  NI: 28,
  NL: 18,
  NO: 15,
  OM: 23,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  RU: 33,
  SA: 24,
  SC: 31,
  SD: 18,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  SO: 23,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
  YE: 30,
};

/** Country, check digits, then up to 30 letters and digits, in groups separated by single spaces. */
const IBAN_CANDIDATE = /(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){11,30}/g;

function findIbans(text: string, findings: Finding[]): void {
  const pattern = IBAN_CANDIDATE;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const span = ibanSpan(match[0], match.index);
    if (span === null) {
      // The candidate may have swallowed the start of another: look again from its next character.
      pattern.lastIndex = match.index + 1;
      continue;
    }
    findings.push(finding('iban', span.start, span.end));
    pattern.lastIndex = span.end;
  }
}

/** The IBAN at the start of a candidate: exactly its country's length, ending where a group ends. */
function ibanSpan(candidate: string, offset: number): { start: number; end: number } | null {
  const country = candidate.slice(0, 2).toUpperCase();
  const length = IBAN_LENGTHS[country];
  if (length === undefined) return null;
  let compact = '';
  let end = 0;
  while (end < candidate.length && compact.length < length) {
    if (candidate[end] !== ' ') compact += candidate[end];
    end += 1;
  }
  if (compact.length < length) return null;
  // The IBAN must end where a group ends, not in the middle of a longer token.
  if (end < candidate.length && candidate[end] !== ' ') return null;
  return ibanValid(compact) ? { start: offset, end: offset + end } : null;
}

/** ISO 13616: the country's length, and mod 97 of the rearranged number (letters as 10..35) is 1. */
export function ibanValid(iban: string): boolean {
  const upper = iban.toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(upper)) return false;
  if (IBAN_LENGTHS[upper.slice(0, 2)] !== upper.length) return false;
  const rearranged = upper.slice(4) + upper.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const code = char.charCodeAt(0);
    const value = code >= 65 ? code - 55 : code - 48;
    remainder = (value >= 10 ? remainder * 100 + value : remainder * 10 + value) % 97;
  }
  return remainder === 1;
}

// ---------------------------------------------------------------------------------------------- phone

/**
 * International: `+` or `00`, a country code, then groups of digits (one may be in parentheses)
 * separated by single spaces, dots or dashes; 8 to 15 digits in all (E.164 allows 15).
 */
const INTERNATIONAL_PHONE = /(?<![\w+])(?:\+|00(?=[1-9]))[1-9]\d{0,3}(?:[ .-]?(?:\(\d{1,4}\)|\d{1,5})){1,7}/g;
/** North American: (NXX) NXX-XXXX, NXX-NXX-XXXX, NXX.NXX.XXXX or NXX NXX XXXX (N = 2..9). */
const NANP_PHONE = /(?<![\w+.-])(?:\([2-9]\d{2}\) ?|[2-9]\d{2}[-. ])[2-9]\d{2}[-. ]\d{4}(?![\w-]|\.\d)/g;
/**
 * National with a trunk 0 (most of Europe, much of Asia and Africa): `0` and 9 to 11 more digits,
 * written whole (0612345678) or in groups (020 7946 0958, 06 12 34 56 78, (030) 1234567).
 */
const TRUNK_PHONE =
  /(?<![\w+.-])(?:\(0\d{1,4}\) ?\d{2,4}(?:[ .-]?\d{2,4}){0,3}|0\d{1,4}(?:[ .-]\d{2,4}){1,5}|0[1-9]\d{8,10})(?![\w-]|\.\d)/g;

function findPhoneNumbers(text: string, findings: Finding[]): void {
  for (const match of matches(INTERNATIONAL_PHONE, text)) {
    const end = match.index + match[0].length;
    // The number does not stop in the middle of a longer one.
    if (/[\w]/.test(text[end] ?? '')) continue;
    const digits = countDigits(match[0]) - (match[0].startsWith('00') ? 2 : 0);
    if (digits >= 8 && digits <= 15) findings.push(finding('phone_number', match.index, end));
  }
  for (const match of matches(NANP_PHONE, text))
    findings.push(finding('phone_number', match.index, match.index + match[0].length));
  for (const match of matches(TRUNK_PHONE, text)) {
    const digits = countDigits(match[0]);
    if (digits >= 10 && digits <= 12)
      findings.push(finding('phone_number', match.index, match.index + match[0].length));
  }
}

function countDigits(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) count += 1;
  }
  return count;
}

function finding(kind: string, start: number, end: number): Finding {
  return { kind, category: 'personal', start, end };
}
