import type { AttemptRecorded, DeliveryAttemptRecord } from "../resources/webhook-delivery.ts";
import type { TransactionStore } from "../storage/transaction.ts";
import { recordDeliveryAttempts } from "./delivery-operations.ts";

/**
 * Records the attempts ending in one turn of the event loop together (`recordDeliveryAttempts`):
 * one transaction (one commit) for all the answers that one poll of the sockets brought, written
 * right after it (`setImmediate`), so no record waits for a timer. A failed batch fails each of
 * its records, as their own would.
 */
export function createBatchRecorder(
  storage: Pick<TransactionStore, "transaction">,
  disableAfter?: number,
): (record: DeliveryAttemptRecord) => Promise<AttemptRecorded> {
  let batch: Array<{
    record: DeliveryAttemptRecord;
    resolve: (result: AttemptRecorded) => void;
    reject: (error: unknown) => void;
  }> = [];

  function flush() {
    const taken = batch;
    batch = [];
    recordDeliveryAttempts({ storage }, { records: taken.map((entry) => entry.record), disableAfter }).then(
      (results) => {
        for (const [index, entry] of taken.entries()) entry.resolve(results[index]!);
      },
      (error: unknown) => {
        for (const entry of taken) entry.reject(error);
      },
    );
  }

  return (record) =>
    new Promise((resolve, reject) => {
      if (batch.length === 0) setImmediate(flush);
      batch.push({ record, resolve, reject });
    });
}
