// Types of engram-wasm/adapter-tests: the storage-adapter conformance suite, for adapters written
// outside this package.
import type { StorageAdapter, StorageKey } from "./index.js";

/** One check of the contract (`StorageAdapter` in engram-wasm's types). */
export interface AdapterCheck {
  readonly name: string;
  /**
   * Runs the check on adapters `make()` returns (each fresh and empty). Resolves, to "skipped" when
   * the adapter lacks the optional method it checks (`create`, `lock`, `flush`); rejects with what
   * broke the contract.
   */
  run(make: () => StorageAdapter): Promise<void | "skipped">;
}

/** Every check, in order. */
export const adapterConformance: readonly AdapterCheck[];

/** Keys that break naive file-name or URL mappings; an adapter must keep each its own record. */
export const TRICKY_KEYS: readonly StorageKey[];

/**
 * Registers every check with a test runner's `test(name, fn)` (node:test, Vitest, Jest, Mocha,
 * Deno): `testAdapter(() => new MyStorage(), test)`.
 */
export function testAdapter(make: () => StorageAdapter, test: (name: string, fn: () => Promise<unknown>) => unknown, prefix?: string): void;
