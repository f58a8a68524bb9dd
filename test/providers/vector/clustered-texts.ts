/**
 * Seeded synthetic memories with topical structure, as real notes have: each text mixes words of
 * one of many topics with common filler words and a rare name. Queries take some words of an
 * existing text, as a user recalling a note would.
 */
export function clusteredTexts(seed: number, topicCount = 150, wordsPerTopic = 40) {
  let state = seed >>> 0 || 1;
  const random = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const word = (i: number) => {
    const consonants = 'bcdfghjklmnprstvz';
    const vowels = 'aeiou';
    let text = '';
    for (let n = i + 1; n > 0; n = Math.floor(n / 85)) text += consonants[n % 17]! + vowels[Math.floor(n / 17) % 5]!;
    return text;
  };
  const topics = Array.from({ length: topicCount }, (_, t) => Array.from({ length: wordsPerTopic }, (_, j) => word(1000 + t * wordsPerTopic + j)));
  const common = Array.from({ length: 1000 }, (_, i) => word(i));
  const names = Array.from({ length: 30_000 }, (_, i) => word(50_000 + i));
  return {
    random,
    text(): string {
      const topic = pick(topics);
      const words: string[] = [];
      for (let i = 0, n = 6 + Math.floor(random() * 8); i < n; i++) words.push(pick(topic));
      for (let i = 0, n = 4 + Math.floor(random() * 8); i < n; i++) words.push(common[Math.floor(common.length * random() ** 2)]!);
      words.push(pick(names));
      return words.join(' ');
    },
    queryFor(text: string): string {
      const words = text.split(' ');
      const kept = words.filter(() => random() < 0.5).slice(0, 6);
      return (kept.length > 0 ? kept : words.slice(0, 1)).join(' ');
    },
  };
}
