import { check, checkEqual, expectError } from '../assert.js';
import type { CheckDefinition } from '../types.js';

const ISO_MS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Identity checks: profile fields, updates, the public profile, credentials, errors. */
export const IDENTITY_CHECKS: CheckDefinition[] = [
  {
    area: 'identity',
    name: 'the profile holds the handle, email and timestamps the control plane announced',
    run: async ({ agent }) => {
      const me = await agent({ display_name: 'Conformance Bot' });
      const profile = await me.client.identity.getProfile();
      checkEqual([profile.agent_id, profile.handle, profile.email, profile.display_name], [me.agent_id, me.handle, me.email, 'Conformance Bot'], 'agent_id, handle, email, display_name');
      check(profile.handle.startsWith(`${me.name}.`), `handle ${profile.handle} is not <name>.<service_domain>`);
      checkEqual(profile.email, `${me.name}@${profile.handle.slice(me.name.length + 1)}`, 'email (<name>@<service_domain>)');
      check(ISO_MS_Z.test(profile.created_at), `created_at ${profile.created_at} is not ISO 8601 with milliseconds and Z`);
      check(Number.isInteger(profile.reputation) && profile.reputation >= 0 && profile.reputation <= 100, `reputation ${profile.reputation} is not an integer 0..100`);
    },
  },
  {
    area: 'identity',
    name: 'PATCH changes only the given fields and the public profile never shows the email',
    run: async ({ agent }) => {
      const me = await agent({ display_name: 'Before' });
      const viewer = await agent();
      const updated = await me.client.identity.updateProfile({ bio: 'I sell widgets' });
      checkEqual([updated.display_name, updated.bio], ['Before', 'I sell widgets'], 'display_name and bio after a PATCH of bio');
      const seen = await viewer.client.identity.getPublicProfile(me.handle);
      check(!('email' in seen), `the public profile shows the email: ${JSON.stringify(seen)}`);
      checkEqual([seen.handle, seen.bio], [me.handle, 'I sell widgets'], 'handle and bio of the public profile');
      await expectError('a display_name of the wrong type', me.client.identity.updateProfile({ display_name: 42 } as never), 400, 'invalid_request', 'display_name');
      await expectError('an unknown handle', viewer.client.identity.getPublicProfile('cf-nobody-here-0'), 404, 'not_found');
    },
  },
  {
    area: 'identity',
    name: 'credentials are vc+jwt with a W3C VC and a compact JWS',
    run: async ({ agent }) => {
      const me = await agent();
      const { credentials } = await me.client.identity.listCredentials();
      check(credentials.length > 0, 'the agent has no credentials');
      for (const item of credentials) {
        checkEqual(item.format, 'vc+jwt', 'format');
        check(/^[\w-]+\.[\w-]+\.[\w-]+$/.test(item.jwt), `jwt ${item.jwt.slice(0, 40)}… is not a compact JWS`);
        const vc = item.credential as Record<string, unknown>;
        check(Array.isArray(vc['@context']) && Array.isArray(vc.type) && typeof vc.credentialSubject === 'object', `credential lacks @context, type or credentialSubject: ${JSON.stringify(vc).slice(0, 200)}`);
      }
    },
  },
];
