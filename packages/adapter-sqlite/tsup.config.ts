import { defineConfig } from "tsup";

export default defineConfig({
  // The writer thread's entry is a file of its own, which the store starts as a worker by its URL.
  entry: { index: "src/index.ts", writer: "src/writer.ts" },
  format: ["esm"],
  // The writer exports nothing: types for the package's entry alone.
  dts: { entry: { index: "src/index.ts" } },
  clean: true,
  sourcemap: true,
  target: "node22",
});
