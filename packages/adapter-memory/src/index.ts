export { createMemoryStore } from "./memory-store.ts";
