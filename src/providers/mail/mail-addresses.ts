import type { EmailAddress } from 'mailparser';

/** Appends the addresses of `entries` to `into`, groups flattened, entries without one left out. */
function collect(entries: EmailAddress[], into: string[]): string[] {
  for (const entry of entries) {
    if (entry.group) collect(entry.group, into);
    else if (entry.address) into.push(entry.address);
  }
  return into;
}

/** The addresses of parsed address headers (one per occurrence), in order, groups flattened. */
export function flatAddresses(headers: ReadonlyArray<{ value: EmailAddress[] }>): string[] {
  const into: string[] = [];
  for (const header of headers) collect(header.value, into);
  // A copy of exactly its length: an array grown by push keeps room for 17, and this one is kept
  // with the stored message (184 instead of 56 bytes for one address).
  return into.length === 0 ? into : into.slice();
}
