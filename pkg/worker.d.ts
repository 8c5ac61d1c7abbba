// The worker script of a WorkerPool (index.d.ts): started as a module worker from this entry
// point's URL, it talks to the pool by messages and exports nothing.
export {};
