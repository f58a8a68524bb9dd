/** A text the sentence-encoder worker embeds, numbered by the host. */
export interface EmbedRequest {
  id: number;
  text: string;
}

/** The worker's answer to one {@link EmbedRequest}: its vector, or why there is none. */
export type EmbedAnswer = { id: number; vector: Float32Array } | { id: number; error: string };
