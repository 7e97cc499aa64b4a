import type { Collection, Db } from 'mongodb';
import { insertNew } from '@tollgate/kit';
import type { Stored } from './versioned.js';

export const DEAD_LETTERS = 'dead_letters';

/** A message the service could not use, kept for an operator. */
export interface DeadLetter {
  /** JetStream stream sequence: one letter per message, however often it is redelivered. */
  streamSequence: number;
  subject: string;
  reason: string;
  /** The message bytes, base64. */
  data: string;
  receivedAt: Date;
}

/** Messages (e.g. malformed `approval.requested` events) set aside instead of retried forever. */
export class DeadLetters {
  readonly #letters: Collection<Stored>;

  constructor(db: Db) {
    this.#letters = db.collection(DEAD_LETTERS);
  }

  async put(letter: DeadLetter): Promise<void> {
    await insertNew(this.#letters, { _id: `seq/${letter.streamSequence}`, ...letter });
  }

  async list(limit = 100): Promise<DeadLetter[]> {
    const docs = await this.#letters.find({}).sort({ receivedAt: 1 }).limit(limit).toArray();
    return docs.map(({ _id: _ignored, ...rest }) => rest as unknown as DeadLetter);
  }
}
