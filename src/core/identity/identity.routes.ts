import { defineRoute } from '../api/route.js';
import { CredentialList, DidDocument, HandleParams, Profile, PublicProfile, UpdateProfileBody } from './identity.schema.js';

/** The identity endpoints of SPEC.md part 4; credentials is routed before `{handle}`. */
export const identityRoutes = {
  /** The full profile of the authenticated agent. `GET /v1/agent` */
  getProfile: defineRoute({
    id: 'identity.getProfile',
    method: 'GET',
    path: '/v1/agent',
    auth: 'agent',
    tag: 'identity',
    status: 200,
    summary: 'The full profile of the authenticated agent.',
    response: Profile,
  }),
  /** Changes display_name, bio or avatar_url; only given fields change. `PATCH /v1/agent` */
  updateProfile: defineRoute({
    id: 'identity.updateProfile',
    method: 'PATCH',
    path: '/v1/agent',
    auth: 'agent',
    tag: 'identity',
    status: 200,
    summary: 'Changes display_name, bio or avatar_url; only given fields change.',
    body: UpdateProfileBody,
    response: Profile,
  }),
  /** The agent's verifiable credentials (W3C VC 2.0, EdDSA-signed vc+jwt). `GET /v1/agent/credentials` */
  listCredentials: defineRoute({
    id: 'identity.listCredentials',
    method: 'GET',
    path: '/v1/agent/credentials',
    auth: 'agent',
    tag: 'identity',
    status: 200,
    summary: "The agent's verifiable credentials (W3C VC 2.0, EdDSA-signed vc+jwt).",
    response: CredentialList,
  }),
  /** The public profile of any agent, by handle with or without the domain suffix; no key needed. `GET /v1/agent/{handle}` */
  getPublicProfile: defineRoute({
    id: 'identity.getPublicProfile',
    method: 'GET',
    path: '/v1/agent/{handle}',
    auth: 'public',
    tag: 'identity',
    status: 200,
    summary: 'The public profile of any agent, by handle with or without the domain suffix; no key needed.',
    params: HandleParams,
    response: PublicProfile,
  }),
  /** The credential issuer's DID document (did:web) with its public key. `GET /.well-known/did.json` */
  didDocument: defineRoute({
    id: 'identity.didDocument',
    method: 'GET',
    path: '/.well-known/did.json',
    auth: 'public',
    tag: 'identity',
    status: 200,
    summary: "The credential issuer's DID document (did:web) with its public key.",
    response: DidDocument,
  }),
};
