import { compactVerify, decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRuntime, serve, type Credential, type DidDocument } from '../../src/index.js';
import { ISO_MS_Z, TRANSPORTS, openWorld, type TestAgent, type World } from '../support/transports.js';

const VC_V2_CONTEXT = 'https://www.w3.org/ns/credentials/v2';

/** The issuer's public key from a DID document, ready for jose. */
async function issuerKeyOf(did: DidDocument) {
  const method = did.verificationMethod[0]!;
  return { kid: method.id, key: await importJWK(method.publicKeyJwk as JWK, 'EdDSA') };
}

const base64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const fromBase64url = (text: string) => Buffer.from(text, 'base64url');

describe.each(TRANSPORTS)('verifiable credentials (%s)', (kind) => {
  let world: World;
  let alice: TestAgent;
  let credential: Credential;

  beforeEach(async () => {
    world = await openWorld(kind);
    alice = await world.newAgent('alice');
    const { credentials } = await alice.client.identity.listCredentials();
    expect(credentials).toHaveLength(1);
    credential = credentials[0]!;
  });
  afterEach(() => world.close());

  describe('GET /v1/agent/credentials', () => {
    it('holds the identity credential issued at creation', () => {
      expect(credential.credential_id).toMatch(/^cred_/);
      expect(credential.format).toBe('vc+jwt');
      expect(Object.keys(credential).sort()).toEqual(['credential', 'credential_id', 'format', 'jwt']);
    });

    it('is a W3C VC Data Model 2.0 credential issued by did:web:agents.test', async () => {
      const vc = credential.credential;
      expect(vc['@context']).toContain(VC_V2_CONTEXT);
      expect(vc['@context'][0]).toBe(VC_V2_CONTEXT);
      expect(vc.type).toContain('VerifiableCredential');
      expect(vc.issuer).toBe('did:web:agents.test');
      expect(vc.validFrom).toMatch(ISO_MS_Z);
      expect(vc.validFrom).toBe((await alice.client.identity.getProfile()).created_at);
      expect(vc.credentialSubject).toEqual({ agent_id: alice.agent_id, handle: 'alice.agents.test' });
    });

    it('gives every agent its own credential', async () => {
      const bob = await world.newAgent('bob');
      const [bobs] = (await bob.client.identity.listCredentials()).credentials;
      expect(bobs!.credential_id).not.toBe(credential.credential_id);
      expect(bobs!.credential.credentialSubject).toEqual({ agent_id: bob.agent_id, handle: 'bob.agents.test' });
    });
  });

  describe('GET /.well-known/did.json', () => {
    it('names the issuer and one Ed25519 verification method', async () => {
      const did = await world.anonymous.identity.didDocument();
      expect(did.id).toBe('did:web:agents.test');
      expect(did.verificationMethod).toHaveLength(1);
      const method = did.verificationMethod[0]!;
      expect(method.controller).toBe(did.id);
      expect(method.id.startsWith(`${did.id}#`)).toBe(true);
      expect(method.publicKeyJwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
      expect(method.publicKeyJwk).not.toHaveProperty('d');
      expect(did.assertionMethod).toContain(method.id);
    });
  });

  describe('the jwt', () => {
    it('verifies with the DID document key: alg EdDSA, typ vc+jwt, kid of the verification method', async () => {
      const { key, kid } = await issuerKeyOf(await world.anonymous.identity.didDocument());
      const { protectedHeader, payload } = await jwtVerify(credential.jwt, key, { typ: 'vc+jwt', algorithms: ['EdDSA'] });
      expect(protectedHeader).toEqual({ alg: 'EdDSA', typ: 'vc+jwt', kid });
      expect(payload).toEqual(credential.credential);
    });

    it('carries exactly the credential object as its payload', async () => {
      const { key } = await issuerKeyOf(await world.anonymous.identity.didDocument());
      const { payload } = await compactVerify(credential.jwt, key);
      expect(JSON.parse(new TextDecoder().decode(payload))).toEqual(credential.credential);
    });

    it('fails verification when the payload is changed', async () => {
      const { key } = await issuerKeyOf(await world.anonymous.identity.didDocument());
      const [header, , signature] = credential.jwt.split('.');
      const forged = { ...credential.credential, credentialSubject: { agent_id: alice.agent_id, handle: 'mallory.agents.test' } };
      const tampered = `${header}.${base64url(JSON.stringify(forged))}.${signature}`;
      await expect(compactVerify(tampered, key)).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
      await expect(jwtVerify(tampered, key)).rejects.toThrow();
    });

    it('fails verification when one signature byte is flipped', async () => {
      const { key } = await issuerKeyOf(await world.anonymous.identity.didDocument());
      const [header, payload, signature] = credential.jwt.split('.');
      const bytes = fromBase64url(signature!);
      bytes[10] = bytes[10]! ^ 0x01;
      const tampered = `${header}.${payload}.${base64url(bytes)}`;
      expect(tampered).not.toBe(credential.jwt);
      await expect(compactVerify(tampered, key)).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
    });

    it('declares the signing key in its header', () => {
      expect(decodeProtectedHeader(credential.jwt)).toEqual({ alg: 'EdDSA', typ: 'vc+jwt', kid: 'did:web:agents.test#key-1' });
    });
  });
});

describe('the issuer key', () => {
  it('is served as plain JSON at /.well-known/did.json over a real socket', async () => {
    const runtime = await createRuntime();
    const server = await serve(runtime, { port: 0 });
    try {
      const { api_key } = await runtime.createAgent({ name: 'alice' });
      const response = await fetch(`${server.url}/.well-known/did.json`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const did = (await response.json()) as DidDocument;
      const { key } = await issuerKeyOf(did);
      const [vc] = (await runtime.agent(api_key).identity.listCredentials()).credentials;
      await expect(jwtVerify(vc!.jwt, key)).resolves.toMatchObject({ payload: vc!.credential });
    } finally {
      await server.close();
    }
  });

  it('differs between seeds, so one seed cannot verify the credentials of another', async () => {
    const one = await createRuntime({ seed: 1 });
    const two = await createRuntime({ seed: 2 });
    const jwkOne = (await one.anonymous().identity.didDocument()).verificationMethod[0]!.publicKeyJwk;
    const jwkTwo = (await two.anonymous().identity.didDocument()).verificationMethod[0]!.publicKeyJwk;
    expect(jwkOne.x).not.toBe(jwkTwo.x);

    const { api_key } = await one.createAgent({ name: 'alice' });
    const [vc] = (await one.agent(api_key).identity.listCredentials()).credentials;
    const { key: keyTwo } = await issuerKeyOf(await two.anonymous().identity.didDocument());
    await expect(compactVerify(vc!.jwt, keyTwo)).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
  });

  it('is the same for the same seed, and so are the signed credentials', async () => {
    const first = await createRuntime({ seed: 'same' });
    const second = await createRuntime({ seed: 'same' });
    expect(await first.anonymous().identity.didDocument()).toEqual(await second.anonymous().identity.didDocument());

    const a = await first.createAgent({ name: 'alice' });
    const b = await second.createAgent({ name: 'alice' });
    const [vcA] = (await first.agent(a.api_key).identity.listCredentials()).credentials;
    const [vcB] = (await second.agent(b.api_key).identity.listCredentials()).credentials;
    expect(vcA!.jwt).toBe(vcB!.jwt);
  });

  it('names the issuer after the configured service domain', async () => {
    const runtime = await createRuntime({ serviceDomain: 'corp.example' });
    const { api_key } = await runtime.createAgent({ name: 'alice' });
    const did = await runtime.anonymous().identity.didDocument();
    expect(did.id).toBe('did:web:corp.example');
    const [vc] = (await runtime.agent(api_key).identity.listCredentials()).credentials;
    expect(vc!.credential.issuer).toBe('did:web:corp.example');
    expect(vc!.credential.credentialSubject).toMatchObject({ handle: 'alice.corp.example' });
    const { key, kid } = await issuerKeyOf(did);
    const { protectedHeader } = await jwtVerify(vc!.jwt, key);
    expect(protectedHeader.kid).toBe(kid);
  });
});
