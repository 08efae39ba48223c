import type { EventStore, RecordedEvent } from '../../../ports/event-store';
import type { BundleView, StoredLeaf } from '../../../projectors/governance/governance-projection';
import {
  admissionAt,
  bundlePartsOf,
  leafRecordAt,
  leafRecordOf,
  parentBundleHashOf,
} from './admission-records';

const BUNDLE = { type: 'GOV_PROOF_BUNDLE_V1', parent_bundle_hash: 'ab'.repeat(32) };
const CERTIFICATE = { type: 'GOV_CERTIFICATE_V1' };
const ENVELOPE = { type: 'GOV_GOVERNANCE_ENVELOPE_V1', artifact_hash: 'cd'.repeat(32) };
const TRACE = { type: 'GOV_EXECUTION_TRACE_V1' };

/** An event store holding these events, counting the reads made of it. */
function storeOf(events: Array<Pick<RecordedEvent, 'position' | 'type' | 'data'>>) {
  const reads: number[] = [];
  const store: Pick<EventStore, 'readAll'> = {
    async *readAll(options = {}) {
      reads.push(options.from ?? -1);
      for (const event of events) if (event.position >= (options.from ?? 0)) yield event as RecordedEvent;
    },
  };
  return { store, reads };
}

const admitted = {
  position: 7,
  type: 'EvidenceAdmitted',
  data: { bundle: BUNDLE, certificate: CERTIFICATE, envelope: ENVELOPE },
};
const executed = { position: 9, type: 'ExecutionAdmitted', data: { trace: TRACE } };

const slimBundle = {
  admitted_position: 7,
  parent_bundle_hash: BUNDLE.parent_bundle_hash,
} as unknown as BundleView;

describe('admission records', () => {
  it('given an admission at a position, then its bundle, certificate and envelope are read from that event', async () => {
    const { store, reads } = storeOf([admitted, executed]);
    expect(await bundlePartsOf(store, slimBundle)).toEqual(admitted.data);
    expect(reads).toEqual([7]);
  });

  it('given a document written before version 2 (holding the parts), then they are taken from it and the store is not read', async () => {
    const { store, reads } = storeOf([]);
    const legacy = { admitted_position: 7, ...admitted.data } as unknown as BundleView;
    expect(await bundlePartsOf(store, legacy)).toEqual(admitted.data);
    expect(parentBundleHashOf(legacy)).toBe(BUNDLE.parent_bundle_hash);
    expect(await leafRecordOf(store, { position: 7, record: ENVELOPE } as unknown as StoredLeaf)).toBe(
      ENVELOPE,
    );
    expect(reads).toEqual([]);
  });

  it('given a first bundle (no parent), then its parent bundle hash is null, not taken for a legacy one', () => {
    expect(parentBundleHashOf({ ...slimBundle, parent_bundle_hash: null })).toBeNull();
  });

  it('given leaves of each admission type, then the record is the event member that is the leaf', async () => {
    const { store } = storeOf([admitted, executed]);
    expect(await leafRecordAt(store, 7)).toEqual(ENVELOPE);
    expect(await leafRecordAt(store, 9)).toEqual(TRACE);
  });

  it('given a position holding no admission (a broken read model), then the read fails naming it', async () => {
    const { store } = storeOf([{ position: 8, type: 'TenantRegistered', data: {} }]);
    await expect(admissionAt(store, 8, ['EvidenceAdmitted'])).rejects.toThrow(
      /event position 8, which holds no EvidenceAdmitted/,
    );
    await expect(admissionAt(store, 3, ['EvidenceAdmitted'])).rejects.toThrow(/event position 3/);
  });
});
