import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { describeStorage } from "./_storage-suite.ts";
import { sqliteStorage } from "./_sqlite.ts";

describeStorage("SQLite in memory", () => sqliteStorage(":memory:"));

const dir = mkdtempSync(join(tmpdir(), "event-service-storage-"));
after(() => rmSync(dir, { recursive: true, force: true }));
describeStorage("SQLite file (WAL)", () => sqliteStorage(join(dir, "events.sqlite")));
