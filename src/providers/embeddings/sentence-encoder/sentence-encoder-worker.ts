/**
 * The worker thread that holds the Universal Sentence Encoder ({@link UseLiteModel}): TensorFlow.js
 * keeps its backend in global state, so it lives here, apart from the host's (and its user's)
 * modules, and the host's event loop never waits on a model run. Texts are embedded one at a time,
 * in the order they arrive.
 */
import { parentPort } from 'node:worker_threads';
import { UseLiteModel } from './use-lite-model.js';
import type { EmbedAnswer, EmbedRequest } from './worker-protocol.js';

const port = parentPort!;
const model = UseLiteModel.load();
// A load failure is answered to every request (below); it must not end the thread unhandled.
model.catch(() => undefined);
let queue: Promise<void> = Promise.resolve();

port.on('message', (request: EmbedRequest) => {
  queue = queue.then(async () => {
    let answer: EmbedAnswer;
    try {
      answer = { id: request.id, vector: await (await model).embed(request.text) };
    } catch (error) {
      answer = { id: request.id, error: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(answer, 'vector' in answer ? [answer.vector.buffer as ArrayBuffer] : []);
  });
});
