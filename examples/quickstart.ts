/**
 * Quickstart: a simulated world in-process, an agent, its profile and a verified credential.
 * In your own project import from 'agent-services' instead of '../src/index.js'.
 */
import { importJWK, jwtVerify } from 'jose';
import { createRuntime } from '../src/index.js';

/** Runs the quickstart and answers what it saw (the example's test checks it). */
export async function quickstart() {
  // The same seed always gives the same world: ids, API keys, issuer key, timestamps.
  const runtime = await createRuntime({ seed: 42 });

  // The control plane creates agents; the API key is shown only here.
  const { api_key, handle } = await runtime.createAgent({ name: 'alice', display_name: 'Alice' });
  const alice = runtime.agent(api_key);

  // Every SPEC.md endpoint is a method taking and returning the documented JSON.
  const profile = await alice.identity.updateProfile({ bio: 'I book flights.' });

  // Anyone can read the public profile (no email) and check credentials against the DID document.
  const publicProfile = await runtime.anonymous().identity.getPublicProfile(handle);
  const { credentials } = await alice.identity.listCredentials();
  const did = await runtime.anonymous().identity.didDocument();
  const key = await importJWK(did.verificationMethod[0]!.publicKeyJwk, 'EdDSA');
  const { payload } = await jwtVerify(credentials[0]!.jwt, key, { typ: 'vc+jwt' });

  // Simulated time only moves when told to.
  const { now } = await runtime.sim.advance({ seconds: 3 * 86_400 });

  return { profile, publicProfile, verifiedSubject: payload.credentialSubject, now };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await quickstart(), null, 2));
}
