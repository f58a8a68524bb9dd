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
  return into;
}
