import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", webhooks: "src/webhooks/index.ts" },
  format: ["esm"],
  target: "node20",
  dts: true,
  clean: true,
  sourcemap: true,
  splitting: false,
});
