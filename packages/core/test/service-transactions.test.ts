import { after } from "node:test";
import { BACKENDS, type TestDatabase } from "./_backends.ts";
import { describeServiceTransactions } from "./_service-transactions.ts";

const opened: TestDatabase[] = [];
after(() => Promise.all(opened.map((database) => database.drop())));

for (const backend of BACKENDS) {
  describeServiceTransactions(backend.name, async () => {
    const database = await backend.open();
    opened.push(database);
    return database.storage;
  });
}
