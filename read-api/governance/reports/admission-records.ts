/**
 * The large parts of an admission (the proof bundle, the certificate, the envelope, a leaf's record)
 * are read from its event, which the read models name by global position, instead of being copied
 * into them: a copy would be ~7 KB per admission, most of what the read models write and keep.
 */
import type { EventPayloads, EvidenceAdmitted } from '../../../event-schemas';
import type { EventStore } from '../../../ports/event-store';
import type { BundleView, StoredLeaf } from '../../../projectors/governance/governance-projection';
import { ADMISSION_EVENT_TYPES, LEAF_RECORD_MEMBER } from '../../../projectors/log/log-sequencer';

type AdmissionType = keyof typeof LEAF_RECORD_MEMBER;

/** The admission event at `position`, of one of `types`; a read model naming anything else is a bug. */
export async function admissionAt<T extends AdmissionType>(
  eventStore: Pick<EventStore, 'readAll'>,
  position: number,
  types: readonly T[],
): Promise<{ type: T; data: EventPayloads[T] }> {
  for await (const event of eventStore.readAll({ from: position, maxCount: 1 })) {
    if (event.position === position && (types as readonly string[]).includes(event.type))
      return { type: event.type as T, data: event.data as EventPayloads[T] };
    break;
  }
  throw new Error(`a read model names event position ${position}, which holds no ${types.join(' or ')}`);
}

/** The record that is the leaf of the admission event at `position` (its leaf data, canonicalized). */
export async function leafRecordAt(
  eventStore: Pick<EventStore, 'readAll'>,
  position: number,
): Promise<object> {
  const admission = await admissionAt(eventStore, position, ADMISSION_EVENT_TYPES);
  return (admission.data as unknown as Record<string, object>)[LEAF_RECORD_MEMBER[admission.type]]!;
}

type BundleParts = Pick<EvidenceAdmitted, 'bundle' | 'certificate' | 'envelope'>;

/**
 * The bundle, certificate and envelope of a `bundles` document. Documents written before version 2 of
 * the governance projection hold them (a data folder being upgraded serves those until the rebuilt
 * generation takes over); newer ones are read from their event.
 */
export async function bundlePartsOf(
  eventStore: Pick<EventStore, 'readAll'>,
  view: BundleView,
): Promise<BundleParts> {
  const legacy = view as BundleView & Partial<BundleParts>;
  const { bundle, certificate, envelope } =
    legacy.bundle && legacy.certificate && legacy.envelope
      ? legacy
      : (await admissionAt(eventStore, view.admitted_position, ['EvidenceAdmitted'])).data;
  return { bundle: bundle!, certificate: certificate!, envelope: envelope! };
}

/** The parent bundle hash of a `bundles` document, of either version (see `bundlePartsOf`). */
export function parentBundleHashOf(view: BundleView): string | null {
  const legacy = view as BundleView & Partial<BundleParts>;
  return view.parent_bundle_hash !== undefined
    ? view.parent_bundle_hash
    : (legacy.bundle?.parent_bundle_hash ?? null);
}

/** The record of a `leaves` document, of either version (see `bundlePartsOf`). */
export async function leafRecordOf(
  eventStore: Pick<EventStore, 'readAll'>,
  leaf: StoredLeaf,
): Promise<object> {
  return (leaf as StoredLeaf & { record?: object }).record ?? leafRecordAt(eventStore, leaf.position);
}
