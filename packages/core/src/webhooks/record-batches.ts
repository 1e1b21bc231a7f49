import type { AttemptRecorded, DeliveryAttemptRecord, DeliveryStore } from "../storage/delivery-store.ts";

/**
 * A `recordDeliveryAttempt` that writes the records of the attempts ending in one turn of the
 * event loop together, with `recordDeliveryAttempts`: one transaction (one commit) for all the
 * answers that one poll of the sockets brought, written right after it (`setImmediate`), so no
 * record waits for a timer. A failed batch fails each of its records, as their own would.
 */
export function recordInBatches(storage: Pick<DeliveryStore, "recordDeliveryAttempts">): (record: DeliveryAttemptRecord) => Promise<AttemptRecorded> {
  let batch: Array<{ record: DeliveryAttemptRecord; resolve: (result: AttemptRecorded) => void; reject: (error: unknown) => void }> = [];

  function flush() {
    const taken = batch;
    batch = [];
    storage.recordDeliveryAttempts(taken.map((entry) => entry.record)).then(
      (results) => taken.forEach((entry, index) => entry.resolve(results[index]!)),
      (error: unknown) => taken.forEach((entry) => entry.reject(error)),
    );
  }

  return (record) =>
    new Promise((resolve, reject) => {
      if (batch.length === 0) setImmediate(flush);
      batch.push({ record, resolve, reject });
    });
}
