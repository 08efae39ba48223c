/** How `gov witness` tells a person (text) or a script (JSON) what a round did. Pure. */
import { toHex } from '../merkle-core';
import type { RoundOutcome, TreeHead } from './follower';

const REFUSAL_MEANING: Record<string, string> = {
  'bad-signature': 'the checkpoint is not validly signed by the log key this witness trusts',
  inconsistent:
    'the checkpoint is not an extension of the tree this witness cosigned: the log forked or rewrote history',
  'bad-request': 'the log went back to a smaller tree than this witness cosigned',
  conflict: 'the state changed under this round (another witness process?)',
  'unknown-log': 'the checkpoint is for another log',
};

function tree(head: TreeHead | null): string {
  return head ? `size ${head.size}, root ${toHex(head.rootHash)}` : 'nothing yet (a new log)';
}

/** Lines for a person; a refusal is a report that stands on its own (it may be handed to auditors). */
export function formatOutcome(outcome: RoundOutcome, stateFile: string): string[] {
  switch (outcome.kind) {
    case 'cosigned': {
      const { checkpoint, previous, recorded } = outcome;
      const from = previous
        ? previous.size === checkpoint.size
          ? `the same tree as cosigned before`
          : `consistent with size ${previous.size}`
        : 'first cosignature of this log';
      const kept =
        recorded.cosignature === outcome.cosignature ? '' : ' (it keeps an earlier cosignature of this size)';
      return [
        `cosigned ${outcome.origin} at size ${checkpoint.size} (root ${toHex(checkpoint.rootHash)}), ${from}; the log accepted it${kept}`,
      ];
    }
    case 'up-to-date':
      return [
        `${outcome.origin} is still at size ${outcome.checkpoint.size}, which this witness has cosigned; nothing to do`,
      ];
    case 'refused': {
      const claimed = outcome.claimed
        ? `${tree(outcome.claimed)}${outcome.claimed.verified ? '' : ' (as stated; the signature did not verify)'}`
        : 'unreadable';
      return [
        `REFUSED to cosign ${outcome.origin}: ${REFUSAL_MEANING[outcome.code] ?? outcome.code}.`,
        `  origin:      ${outcome.origin}`,
        `  cosigned:    ${tree(outcome.previous)}`,
        `  checkpoint:  ${claimed}`,
        `  why:         ${outcome.reason} [${outcome.code}]`,
        `  Nothing was signed and ${stateFile} still holds ${outcome.previous ? `size ${outcome.previous.size}` : 'no tree for this log'}.`,
        '  The refused checkpoint, as served (keep it as evidence):',
        ...outcome.note
          .replace(/\n$/, '')
          .split('\n')
          .map((line) => `    ${line}`),
      ];
    }
  }
}

function treeJson(head: TreeHead | null) {
  return head && { size: head.size, root_hash: toHex(head.rootHash) };
}

/** One JSON object per round. */
export function outcomeJson(outcome: RoundOutcome, witnessKey: string): object {
  const base = { outcome: outcome.kind, origin: outcome.origin, witness_key: witnessKey };
  switch (outcome.kind) {
    case 'cosigned':
      return {
        ...base,
        previous: treeJson(outcome.previous),
        checkpoint: treeJson(outcome.checkpoint),
        cosignature: outcome.cosignature,
        timestamp: outcome.timestamp,
        recorded_cosignature: outcome.recorded.cosignature,
      };
    case 'up-to-date':
      return { ...base, checkpoint: treeJson(outcome.checkpoint) };
    case 'refused':
      return {
        ...base,
        code: outcome.code,
        reason: outcome.reason,
        previous: treeJson(outcome.previous),
        claimed: outcome.claimed && { ...treeJson(outcome.claimed), verified: outcome.claimed.verified },
        note: outcome.note,
      };
  }
}
