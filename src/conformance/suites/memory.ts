import fc from 'fast-check';
import { check, checkEqual, expectError, expectOk } from '../assert.js';
import { checkProperty } from '../property.js';
import type { CheckDefinition } from '../types.js';

const NOTES = [
  'The invoice for the blue widgets is due on Friday',
  'Bob prefers to be contacted by SMS in the morning',
  'Our warehouse in Lyon ships orders within two days',
  'The refund policy allows returns within thirty days',
  'Quarterly taxes are filed by the accountant in April',
];

/** Base64 of bytes, for messages. */
function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Memory checks: ranking, metadata filters, deletion, isolation, files, limits. */
export const MEMORY_CHECKS: CheckDefinition[] = [
  {
    area: 'memory',
    name: 'search ranks the memory that matches the query first, scores within 0..1 and not increasing',
    run: async ({ agent }) => {
      const owner = await agent();
      const ids: string[] = [];
      for (const content of NOTES) ids.push((await owner.client.memory.create({ content })).memory_id);
      for (const [index, content] of NOTES.entries()) {
        const { memories } = await owner.client.memory.search({ query: content, limit: 5 });
        checkEqual(memories[0]?.id, ids[index], `top result for the query ${JSON.stringify(content)}`);
        for (const [position, memory] of memories.entries()) {
          check(memory.score >= 0 && memory.score <= 1, `score ${memory.score} outside 0..1`);
          if (position > 0) check(memory.score <= memories[position - 1]!.score, `scores increase at position ${position}: ${memories.map((item) => item.score).join(', ')}`);
        }
      }
      const limited = await owner.client.memory.search({ query: NOTES[0]!, limit: 2 });
      checkEqual(limited.memories.length, 2, 'results of a search with limit 2');
    },
  },
  {
    area: 'memory',
    name: 'metadata_filter applies before ranking and keys such as __proto__ are ordinary data',
    run: async ({ agent }) => {
      const owner = await agent();
      const weak = await owner.client.memory.create({
        content: 'Completely unrelated gardening advice about tomatoes',
        metadata: JSON.parse('{"topic":"garden","__proto__":"x","constructor":"y"}') as Record<string, string>,
      });
      await owner.client.memory.create({ content: 'Invoice number 7 for the blue widgets', metadata: { topic: 'billing' } });
      const { memories } = await owner.client.memory.search({ query: 'Invoice number 7 for the blue widgets', limit: 1, metadata_filter: { topic: 'garden' } });
      checkEqual(
        memories.map((memory) => memory.id),
        [weak.memory_id],
        'the filtered search (the only garden memory, though it ranks lower)',
      );
      checkEqual(memories[0]!.metadata, JSON.parse('{"topic":"garden","__proto__":"x","constructor":"y"}'), 'metadata returned as stored');
      const special = await owner.client.memory.search({ query: 'tomatoes', metadata_filter: JSON.parse('{"__proto__":"x"}') as Record<string, string> });
      checkEqual(
        special.memories.map((memory) => memory.id),
        [weak.memory_id],
        'a filter on the key __proto__',
      );
      const none = await owner.client.memory.search({ query: 'tomatoes', metadata_filter: { topic: 'nothing-has-this' } });
      checkEqual(none.memories.length, 0, 'results of a filter nothing matches');
    },
  },
  {
    area: 'memory',
    name: "deleting a memory removes it from search, and another agent's memory is 404 not_found",
    run: async ({ agent }) => {
      const owner = await agent();
      const other = await agent();
      const created = await owner.client.memory.create({ content: 'The door code is 4711' });
      await expectError("deleting another agent's memory", other.client.memory.delete(created.memory_id), 404, 'not_found');
      checkEqual((await other.client.memory.search({ query: 'door code' })).memories.length, 0, "another agent's search results");
      await expectOk('deleting an own memory', owner.client.memory.delete(created.memory_id));
      checkEqual((await owner.client.memory.search({ query: 'The door code is 4711' })).memories.length, 0, 'search results after the delete');
      await expectError('deleting it again', owner.client.memory.delete(created.memory_id), 404, 'not_found');
    },
  },
  {
    area: 'memory',
    name: 'files round trip byte for byte and only for their owner',
    property: true,
    run: (context) =>
      checkProperty(
        { ...context, runs: Math.min(context.runs, 10) },
        fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 8192 }), async (bytes) => {
          const owner = await context.agent();
          const other = await context.agent();
          const file = await owner.client.memory.uploadFile({ filename: 'blob.bin', content_type: 'application/octet-stream', data: bytes });
          checkEqual(file.size, bytes.length, 'size of the uploaded file');
          const download = await owner.client.memory.downloadFile(file.file_id);
          checkEqual(base64(download.bytes), base64(bytes), 'downloaded bytes (Base64)');
          const listing = await owner.client.memory.listFiles();
          checkEqual(
            listing.files.map((item) => item.file_id),
            [file.file_id],
            "the owner's file list",
          );
          await expectError("another agent's file", other.client.memory.downloadFile(file.file_id), 404, 'not_found');
        }),
      ),
  },
  {
    area: 'memory',
    name: 'content over 8,000 tokens is 400 content_too_long and empty content 400 invalid_request',
    run: async ({ agent }) => {
      const owner = await agent();
      await expectError('content of 9,000 words', owner.client.memory.create({ content: 'word '.repeat(9000) }), 400, 'content_too_long', 'content');
      await expectError('empty content', owner.client.memory.create({ content: '' }), 400, 'invalid_request', 'content');
      await expectError('a search limit of 51', owner.client.memory.search({ query: 'x', limit: 51 }), 400, 'invalid_request', 'limit');
    },
  },
];
