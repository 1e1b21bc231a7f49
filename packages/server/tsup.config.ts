import { defineConfig } from "tsup";

/**
 * The library (`@event-service/server`, what scripts import) and the checkpointer thread's module.
 * The CLI is built after it by `tsup.cli.config.ts`, into the same folder: this build cleans it.
 */
export default defineConfig({
  entry: { index: "src/index.ts", "checkpoint-thread": "src/checkpoint-thread.ts" },
  format: ["esm"],
  target: "node20",
  dts: { entry: { index: "src/index.ts" } },
  clean: true,
  sourcemap: true,
  splitting: true,
});
