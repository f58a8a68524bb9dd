import { readFileSync } from 'node:fs';
import { FileBlobStore } from '../providers/blobs/file-blob-store.js';
import { Ed25519IssuerKeys } from '../providers/keys/ed25519-issuer-keys.js';
import { openData } from './open-data.js';
import { openDatabase } from '../providers/store/postgres/open-postgres.js';
import type { RuntimeOptions } from './runtime-options.js';

/** Loads a private Ed25519 JWK for signing credentials. @throws Error naming the file */
function issuerKeyFromFile(file: string): Ed25519IssuerKeys {
  try {
    return Ed25519IssuerKeys.fromJwk(JSON.parse(readFileSync(file, 'utf8')) as { kty: string; crv: string; d: string; x: string });
  } catch (error) {
    throw new Error(`--issuer-key ${file}: not a private Ed25519 JWK (${(error as Error).message})`);
  }
}

/**
 * Turns the options that name files (`data`, `issuerKeyFile`) into the providers they stand for:
 * the data file's SQLite store and its `.blobs/` directory, the issuer key. The database is opened,
 * checked and locked here, before anything listens, so a bad file never half-starts a world.
 * @throws Error saying what is wrong with a file and how to go on
 */
export async function resolveFileOptions(options: RuntimeOptions): Promise<RuntimeOptions> {
  let resolved = options;
  if (options.issuerKeyFile !== undefined) {
    if (options.providers?.issuerKeys) throw new Error('give issuerKeyFile or providers.issuerKeys, not both');
    resolved = { ...resolved, providers: { ...resolved.providers, issuerKeys: issuerKeyFromFile(options.issuerKeyFile) } };
  }
  if (options.database !== undefined) {
    if (options.data !== undefined || options.store || options.blobs || options.persistence) {
      throw new Error('the database option keeps the world itself; do not also give data, store, blobs or persistence');
    }
    const store = await openDatabase(options.database);
    resolved = { ...resolved, store, blobs: options.blobsDir !== undefined ? new FileBlobStore(options.blobsDir) : store.blobStore() };
  }
  if (options.data !== undefined) {
    if (options.store || options.blobs || options.persistence) throw new Error('the data option keeps the world itself; do not also give store, blobs or persistence');
    const data = await openData(options.data, options.serviceDomain ?? 'agents.test');
    if (data.notice) options.onNotice?.(data.notice);
    resolved = { ...resolved, store: data.store, blobs: new FileBlobStore(`${data.database}.blobs`) };
  }
  return resolved;
}
