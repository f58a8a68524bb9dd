import { computeRunSuite } from './compute-run-suite.js';
import { WASM } from './compute-sandboxes.js';

// Behaviour and isolation of runs in the default, in-process WebAssembly sandbox.
computeRunSuite(WASM);
