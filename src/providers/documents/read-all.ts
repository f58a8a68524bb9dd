/**
 * Reads a whole source into one buffer, for formats that need random access (PDF, DOCX).
 * @throws Error when the source holds more than `maxBytes`
 */
export async function readAll(source: AsyncIterable<Uint8Array>, maxBytes: number): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of source) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new Error(`document over ${maxBytes} bytes is too large to read whole`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
