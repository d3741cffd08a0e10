// engram-wasm/adapter-tests as an adapter author's test file uses it (compiled only: --noEmit).
import { MemoryStorage, type StorageAdapter } from "engram-wasm";
import { adapterConformance, testAdapter, TRICKY_KEYS, type AdapterCheck } from "engram-wasm/adapter-tests";

const make = (): StorageAdapter => new MemoryStorage();
const checks: readonly AdapterCheck[] = adapterConformance;
const first: Promise<void | "skipped"> = checks[0].run(make);
const keys: readonly string[][] = TRICKY_KEYS;
testAdapter(make, (name: string, fn: () => Promise<unknown>) => ({ name, fn }), "mine: ");
export { first, keys };
