// @catalog-kit/adapter-memory: the in-memory store.
export { createMemoryStore } from "./memory-store.ts";
