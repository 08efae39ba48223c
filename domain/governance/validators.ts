/**
 * Validators are a port: the clearinghouse asks each one for a signed vote on a proof bundle. The local
 * validator signs in-process; a deployment may put remote ones behind the same interface.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import type { ValidatorVote } from '../../event-schemas';
import { publicKeyId, signRecord } from './signing';
import type { Validator } from './validator-round';
import { type Examination, examineBundle, type VoteRequest } from './vote-checks';

export { verifyCertificate } from './certificate';
export {
  proposerOf,
  QuorumNotReachedError,
  quorumThreshold,
  runValidatorRound,
  type Validator,
  ValidatorNetworkError,
} from './validator-round';
export {
  type Examination,
  examineBundle,
  type VoteRequest,
} from './vote-checks';

/** hex SHA-256 of the public key's DER SubjectPublicKeyInfo. */
export function validatorIdOf(publicKey: KeyObject): string {
  return publicKeyId(publicKey);
}

export class LocalValidator implements Validator {
  readonly id: string;
  readonly publicKey: KeyObject;
  readonly inProcess = true;
  readonly #privateKey: KeyObject;

  constructor(privateKey: KeyObject) {
    if (privateKey.asymmetricKeyType !== 'ed25519') throw new TypeError('a validator key must be Ed25519');
    this.#privateKey = privateKey;
    this.publicKey = createPublicKey(privateKey);
    this.id = validatorIdOf(this.publicKey);
  }

  async vote(request: VoteRequest): Promise<ValidatorVote> {
    return this.signVote(request, examineBundle(request));
  }

  /**
   * Signs this validator's vote on an examination already made of the request's bundle: validators
   * sharing a process (and so the bundle's bytes) examine it once between them.
   */
  signVote(request: VoteRequest, { bodyHash, reasons }: Examination): ValidatorVote {
    const unsigned: Omit<ValidatorVote, 'signature'> = {
      type: 'GOV_VOTE_V1',
      validator_id: this.id,
      decision: reasons.length === 0 ? 'ACCEPT' : 'REJECT',
      // The hash of the bundle actually examined, whatever the proposer claimed.
      body_hash: bodyHash,
      ...(reasons.length > 0 && { reasons }),
      voted_at: request.now,
    };
    return { ...unsigned, signature: signRecord(unsigned, this.#privateKey) };
  }
}

export function createLocalValidators(privateKeys: readonly KeyObject[]): LocalValidator[] {
  return privateKeys.map((key) => new LocalValidator(key));
}
