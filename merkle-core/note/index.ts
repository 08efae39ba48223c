/** note: C2SP signed notes and checkpoints, note keys, Ed25519 signers, signature checks, cosignatures, witness. */
export { type Checkpoint, CheckpointFormatError, formatCheckpoint, parseCheckpoint } from './checkpoint';
export { type Ed25519Implementation, ed25519Implementation, signEd25519 } from './ed25519-signer';
export { KeyFormatError, SIGNATURE_TYPE_COSIGNATURE_V1, SIGNATURE_TYPE_ED25519 } from './key-format';
export { exportSignerKey, generateKeyPair, loadSignerKey, loadVerifierKey, NoteSigner } from './keys';
export { nodeCryptoSuite } from './node-crypto-suite';
export { verifyCheckpoint, verifyCosignature } from './node-verifiers';
export { type Note, NoteFormatError, type NoteSignature, parseNote } from './note';
export type { CheckpointVerdict, CosignatureVerdict, CryptoSuite, VerifierKey } from './signature-checks';
export { addSignatureLines, cosignatureLine, signCheckpoint } from './signing';
export {
  type AddCheckpointRequest,
  type AddCheckpointResult,
  decideAddCheckpoint,
  MemoryWitnessStateStore,
  type RefusalCode,
  Witness,
  type WitnessDecision,
  type WitnessLogState,
  type WitnessStateStore,
} from './witness';
