import { detectPersonalData, IBAN_LENGTHS, ibanValid, luhnValid } from './personal';

function found(text: string): [string, string][] {
  return detectPersonalData(text).map((f) => [f.kind, text.slice(f.start, f.end)]);
}

describe('G3 personal-data detectors', () => {
  describe('emails', () => {
    it.each([
      ['write to ada@example.com.', 'ada@example.com'],
      ['<Ada.Lovelace+ai@mail.example.co.uk>', 'Ada.Lovelace+ai@mail.example.co.uk'],
      ['x,bob_o-k%1@sub-domain.example.org;', 'bob_o-k%1@sub-domain.example.org'],
    ])('finds the address in %j', (text, email) => {
      expect(found(text)).toEqual([['email', email]]);
    });

    it.each([
      ['a host without a top-level domain', 'root@localhost'],
      ['a handle', 'ping @ada on chat'],
      ['a one-letter top-level domain', 'a@b.c'],
      ['a doubled dot', 'ada..l@example.com'],
      ['a leading dot', '.ada@example.com'],
      ['no domain', 'ada@ and more'],
    ])('does not find %s', (_name, text) => {
      expect(found(text)).toEqual([]);
    });
  });

  describe('phone numbers', () => {
    it.each([
      ['E.164', 'call +14155552671 today', '+14155552671'],
      ['international with groups and a bracketed area', 'call +1 (415) 555-2671 today', '+1 (415) 555-2671'],
      ['UK international', 'tel. +44 20 7946 0958.', '+44 20 7946 0958'],
      ['French international', '+33 6 12 34 56 78', '+33 6 12 34 56 78'],
      ['00 international prefix', 'dial 0044 20 7946 0958', '0044 20 7946 0958'],
      ['North American with brackets', 'office (415) 555-2671', '(415) 555-2671'],
      ['North American with dashes', '415-555-2671', '415-555-2671'],
      ['North American with dots', '415.555.2671', '415.555.2671'],
      ['UK national', 'ring 020 7946 0958 now', '020 7946 0958'],
      ['French national', 'au 06 12 34 56 78', '06 12 34 56 78'],
      ['UK mobile written whole', 'mobile 07700900123', '07700900123'],
      ['German with a bracketed area code', '(030) 1234567', '(030) 1234567'],
    ])('finds %s', (_name, text, phone) => {
      expect(found(text)).toEqual([['phone_number', phone]]);
    });

    it.each([
      ['an ISO date', 'on 2024-01-15 at 09:30'],
      ['a European date', 'le 01.02.2024'],
      ['an IP address', 'host 192.168.1.1 and 10.0.0.1'],
      ['a version', 'v1.2.3 and 10.0.19045'],
      ['a score', '+100 points'],
      ['a short number', 'room 12345'],
      ['a social-security-like number', '123-45-6789'],
      ['a NANP-like number with an area code starting 1', '123-555-2671'],
      ['an international number too long for E.164', '+1234567890123456789'],
      ['an international number too short', '+12 345'],
      ['an order number starting 1', 'order 1234567890'],
      ['a number inside a word', 'ref A0612345678B'],
    ])('does not find %s', (_name, text) => {
      expect(found(text)).toEqual([]);
    });
  });

  describe('card numbers', () => {
    it.each([
      ['a Visa number in groups', 'card 4111 1111 1111 1111 please', '4111 1111 1111 1111'],
      ['a Mastercard number with dashes', '5555-5555-5555-4444', '5555-5555-5555-4444'],
      ['an Amex number written whole', 'amex 378282246310005', '378282246310005'],
      ['an Amex number in 4-6-5 groups', '3782 822463 10005', '3782 822463 10005'],
      ['a 13-digit Visa', '4222222222222', '4222222222222'],
      ['a 19-digit number', '6011 0009 9013 9424 009', '6011 0009 9013 9424 009'],
      ['a card followed by a year', 'card 4242 4242 4242 4242 2029 ok', '4242 4242 4242 4242'],
      ['a card after another number', 'ref 0123 4111 1111 1111 1111', '4111 1111 1111 1111'],
    ])('finds %s', (_name, text, card) => {
      expect(found(text)).toEqual([['card_number', card]]);
    });

    it.each([
      ['16 digits failing Luhn', '4111 1111 1111 1112'],
      ['all zeros (which pass Luhn)', '0000 0000 0000 0000'],
      ['one repeated digit', '5555555555555555'],
      ['a millisecond timestamp', 'at 1700000000005'],
      ['a list of small numbers', '1 2 3 4 5 6 7 8 9 10 11 12 13 14 15'],
      ['20 digits', '41111111111111111111'],
      ['12 digits', '4111 1111 1111'],
      ['an amount with thousands separators', '4,111,111,111,111,111'],
    ])('does not find %s', (_name, text) => {
      expect(found(text)).toEqual([]);
    });

    it.each([
      ['4111111111111111', true],
      ['4111111111111112', false],
      ['79927398713', true],
      ['79927398710', false],
      ['', false],
      ['12a4', false],
    ])('luhnValid(%j) is %s', (digits, valid) => {
      expect(luhnValid(digits)).toBe(valid);
    });
  });

  describe('IBANs', () => {
    it.each([
      ['a German IBAN in groups', 'IBAN DE89 3704 0044 0532 0130 00 please', 'DE89 3704 0044 0532 0130 00'],
      ['a British IBAN written whole', 'GB29NWBK60161331926819', 'GB29NWBK60161331926819'],
      [
        'a French IBAN with a letter in the account',
        'FR14 2004 1010 0505 0001 3M02 606',
        'FR14 2004 1010 0505 0001 3M02 606',
      ],
      ['a Dutch IBAN followed by a currency', 'NL91 ABNA 0417 1643 00 EUR', 'NL91 ABNA 0417 1643 00'],
      ['a Norwegian IBAN (the shortest)', 'NO93 8601 1117 947', 'NO93 8601 1117 947'],
      ['a lower-case IBAN', 'de89370400440532013000', 'de89370400440532013000'],
    ])('finds %s', (_name, text, iban) => {
      expect(found(text)).toEqual([['iban', iban]]);
    });

    it.each([
      ['a wrong check digit', 'DE88 3704 0044 0532 0130 00'],
      ['one character short of the country length', 'NL91ABNA041716430'],
      ['one character more than the country length', 'NL91ABNA04171643001'],
      ['an unknown country', 'XX89 3704 0044 0532 0130 00'],
      ['letters where a word goes on', 'GB29NWBK60161331926819XY'],
    ])('does not find %s', (_name, text) => {
      expect(found(text).filter(([kind]) => kind === 'iban')).toEqual([]);
    });

    it.each([
      ['DE89370400440532013000', true],
      ['DE88370400440532013000', false],
      ['GB82WEST12345698765432', true],
      ['BE68539007547034', true],
      ['BE68539007547035', false],
      ['DE8937040044053201300', false],
      ['ZZ89370400440532013000', false],
    ])('ibanValid(%j) is %s', (iban, valid) => {
      expect(ibanValid(iban)).toBe(valid);
    });

    it('knows every length between 15 and 34', () => {
      for (const length of Object.values(IBAN_LENGTHS)) {
        expect(length).toBeGreaterThanOrEqual(15);
        expect(length).toBeLessThanOrEqual(34);
      }
    });
  });

  it('finds several kinds in one text, each once', () => {
    const text =
      'Ada <ada@example.com>, +44 20 7946 0958, card 4111-1111-1111-1111, IBAN GB29 NWBK 6016 1331 9268 19.';
    expect(found(text)).toEqual([
      ['email', 'ada@example.com'],
      ['phone_number', '+44 20 7946 0958'],
      ['card_number', '4111-1111-1111-1111'],
      ['iban', 'GB29 NWBK 6016 1331 9268 19'],
    ]);
  });
});
