import type { VerifiableCredential } from './identity.schema.js';

/** `did:web` identifier of the issuer for a service domain. */
export function issuerDid(serviceDomain: string): string {
  return `did:web:${serviceDomain}`;
}

/** The verification method id credentials are signed with. */
export function issuerKeyId(serviceDomain: string): string {
  return `${issuerDid(serviceDomain)}#key-1`;
}

/** The identity credential issued at agent creation: the agent holds this handle and id. */
export function identityCredential(args: { credentialId: string; serviceDomain: string; agentId: string; handle: string; validFrom: string }): VerifiableCredential {
  return {
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    id: `urn:agent-services:credential:${args.credentialId}`,
    type: ['VerifiableCredential', 'AgentIdentityCredential'],
    issuer: issuerDid(args.serviceDomain),
    validFrom: args.validFrom,
    credentialSubject: { agent_id: args.agentId, handle: args.handle },
  };
}
