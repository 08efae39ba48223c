/** What a person and a script read after a round. */
import { toHex } from '../merkle-core';
import type { RoundOutcome } from './follower';
import { formatOutcome, outcomeJson } from './report';

const rootA = new Uint8Array(32).fill(0xaa);
const rootB = new Uint8Array(32).fill(0xbb);
const note = 'log.example/a\n16\nu7u7\n\n— log.example/a AAAA\n';

const refused: RoundOutcome = {
  kind: 'refused',
  origin: 'log.example/a',
  code: 'inconsistent',
  reason: 'consistency proof rejected: root mismatch',
  previous: { size: 8, rootHash: rootA },
  claimed: { size: 16, rootHash: rootB, verified: true },
  note,
};

describe('the round report', () => {
  it('tells a refusal with the origin, both sizes and roots, why, the state kept and the evidence', () => {
    const text = formatOutcome(refused, 'witness-state.json').join('\n');
    expect(text).toMatch(/^REFUSED to cosign log\.example\/a: .*forked or rewrote history/);
    expect(text).toContain(`cosigned:    size 8, root ${toHex(rootA)}`);
    expect(text).toContain(`checkpoint:  size 16, root ${toHex(rootB)}`);
    expect(text).toContain('consistency proof rejected: root mismatch [inconsistent]');
    expect(text).toContain('Nothing was signed and witness-state.json still holds size 8');
    expect(text).toContain('    — log.example/a AAAA');
  });

  it('marks sizes and roots taken from a checkpoint whose signature did not verify', () => {
    const unsigned: RoundOutcome = {
      ...refused,
      code: 'bad-signature',
      previous: null,
      claimed: { ...refused.claimed!, verified: false },
    };
    const text = formatOutcome(unsigned, 's.json').join('\n');
    expect(text).toContain('not validly signed by the log key');
    expect(text).toContain('cosigned:    nothing yet (a new log)');
    expect(text).toContain('(as stated; the signature did not verify)');
  });

  it('gives scripts the same facts as JSON', () => {
    expect(outcomeJson(refused, 'witness.example+01020304+AAAA')).toEqual({
      outcome: 'refused',
      origin: 'log.example/a',
      witness_key: 'witness.example+01020304+AAAA',
      code: 'inconsistent',
      reason: 'consistency proof rejected: root mismatch',
      previous: { size: 8, root_hash: toHex(rootA) },
      claimed: { size: 16, root_hash: toHex(rootB), verified: true },
      note,
    });
  });
});
