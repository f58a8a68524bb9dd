import type { ParaphraseItem } from './paraphrase-set.js';

/**
 * A second paraphrase set, written before the default embedder's tuning of 2026-11-23 and never
 * used to choose a weight or a rule: it stands in for an outside set nobody tuned against. The
 * same rules as `PARAPHRASE_SET` (no content word or stem shared between question and note; the
 * distractor reuses a word of the question in another sense), checked by `paraphrase-set.test.ts`.
 * `npm run bench -- memory-quality` reports it beside the tuning set; a gap between the two shows
 * over-fitting.
 */
export const PARAPHRASE_HOLDOUT: readonly ParaphraseItem[] = [
  {
    key: 'grandma',
    memory: "Grandma's birthday party is on the twelfth of March at her house.",
    query: 'when is the celebration for my grandmother',
    distractor: 'The celebration of the product launch was moved online.',
  },
  {
    key: 'carrier',
    memory: 'I switched my phone plan to the unlimited data package with Vodafone.',
    query: 'which mobile carrier and subscription do I use',
    distractor: 'The aircraft carrier docked in Norfolk for repairs.',
  },
  { key: 'tea', memory: 'Sarah prefers tea over coffee and takes it without sugar.', query: 'what hot drink does she like', distractor: 'The hot sauce bottle leaked in the pantry.' },
  { key: 'garage', memory: 'The garage door opener needs new batteries.', query: 'remote for the car shed has run out of power', distractor: 'The power of compound interest surprised the students.' },
  { key: 'passport', memory: 'My passport expires in June next year.', query: 'when does my travel document become invalid', distractor: 'Light travels faster than sound through air.' },
  { key: 'standup', memory: "Our team's standup meeting happens every weekday at 9:15.", query: 'daily morning sync with colleagues', distractor: 'Sync the phone contacts with the laptop before the journey.' },
  { key: 'tap', memory: 'The landlord promised to fix the leaking kitchen tap by Friday.', query: 'who will repair the dripping faucet', distractor: 'The dripping sarcasm in his review annoyed the author.' },
  { key: 'donation', memory: 'I donated blood at the hospital last Tuesday.', query: 'when did I most recently give at the transfusion centre', distractor: 'The centre forward scored twice in the final.' },
  { key: 'cabin', memory: 'The Wi-Fi password for the cabin is pinecone42.', query: 'how do I get online at the lodge', distractor: 'The lodge of freemasons meets on Thursdays.' },
  { key: 'pressure', memory: 'Mum takes blood pressure tablets every morning.', query: 'what medication does my mother use for hypertension', distractor: 'The mother ship launched three probes toward the moon.' },
  { key: 'vegetarian', memory: 'Jake is vegetarian but eats fish occasionally.', query: 'dietary restrictions of my friend who avoids meat', distractor: 'The meat of the argument was in the last chapter.' },
  { key: 'lake', memory: 'We booked a cottage near the lake for the August holiday.', query: 'summer vacation rental by the water', distractor: 'Summer is the name of the new intern in accounting.' },
  { key: 'tax', memory: 'The quarterly tax payment is due on the fifteenth.', query: 'deadline for sending money to the revenue office', distractor: 'Money Heist is the series we started watching.' },
  { key: 'bike', memory: 'My bike was stolen outside the library last week.', query: 'someone took my bicycle', distractor: 'Bicycle kicks are hard to pull off in football.' },
  { key: 'printer', memory: 'The printer on the second floor jams when using thick paper.', query: 'office copier keeps getting stuck', distractor: 'The office of the president issued a statement.' },
  { key: 'wedding', memory: "Emma's wedding is in Lisbon on the 3rd of October.", query: 'when is my friend getting married in Portugal', distractor: 'Portugal won the match on penalties.' },
  { key: 'stretch', memory: 'I should stretch my hamstrings after running.', query: 'exercises to do once I finish jogging', distractor: 'The exercises in chapter four cover matrix algebra.' },
  { key: 'roof', memory: 'The contractor quoted 12,000 euros for the roof repair.', query: 'how much will fixing the top of the house cost', distractor: 'The house always wins at the casino.' },
  { key: 'thunder', memory: 'Leo is afraid of thunderstorms and hides under the bed.', query: 'which weather frightens the boy', distractor: 'Weather the storm, the coach told the team.' },
  {
    key: 'spare-key',
    memory: 'The spare house key is hidden under the flowerpot by the back door.',
    query: 'where is the extra way to unlock the front entrance',
    distractor: 'The extra time in the match decided the cup.',
  },
  { key: 'cholesterol', memory: 'My cholesterol results came back slightly elevated.', query: 'lipid levels from the lab test', distractor: 'The levels of the game get harder after the castle.' },
  { key: 'consulting', memory: 'The invoice from Acme for consulting is still unpaid.', query: 'outstanding bill from the advisory firm', distractor: "The duck's bill was bright orange." },
  { key: 'japanese', memory: 'I want to learn Japanese before visiting Tokyo next spring.', query: 'language study plans ahead of the Asia trip', distractor: 'The trip switch in the fuse box flipped again.' },
  { key: 'plants', memory: 'Our neighbour waters the plants while we are away.', query: 'who looks after the garden when we travel', distractor: 'The garden variety bugs were easy to fix.' },
  { key: 'insurance', memory: 'The car insurance renews automatically in November.', query: 'when does the vehicle policy roll over', distractor: 'The company policy forbids remote work on Mondays.' },
  { key: 'crumble', memory: "Dad's favourite dessert is apple crumble with custard.", query: 'what sweet dish does my father love', distractor: 'The satellite dish on the roof needs realigning.' },
  { key: 'talk', memory: 'The conference talk is limited to twenty minutes including questions.', query: 'how long may my presentation run', distractor: 'The presentation of the dish impressed the judges.' },
  { key: 'lactose', memory: 'I am lactose intolerant, so I avoid milk and cheese.', query: 'dairy products upset my stomach', distractor: 'The underdog pulled off an upset in the semifinal.' },
  { key: 'migration', memory: 'The server migration is scheduled for the weekend of the 14th.', query: 'when are we moving the backend to new machines', distractor: 'The slot machines at the casino were rigged.' },
  { key: 'spanish', memory: 'Anna speaks fluent Spanish and some Portuguese.', query: 'which languages can she talk in', distractor: 'She gave a talk on compilers at the meetup.' },
  { key: 'gym', memory: 'My gym membership costs 40 dollars a month.', query: 'fitness club fee', distractor: 'The club sandwich came with fries.' },
  { key: 'boiler', memory: 'The plumber is coming Thursday morning to look at the boiler.', query: 'when will the heating technician visit', distractor: 'The heating of the debate surprised the moderator.' },
  { key: 'concert', memory: 'Tickets for the concert go on sale at noon on Friday.', query: 'when can I buy seats for the gig', distractor: 'The seats of government moved to the new capital.' },
  { key: 'wrist', memory: 'Lucy broke her wrist skiing in February.', query: 'injury on the slopes', distractor: 'The slopes of the graph show the growth rate.' },
  { key: 'navy', memory: 'Grandpa served in the navy for twenty years.', query: 'military career of my grandfather at sea', distractor: 'The sea of faces in the stadium was overwhelming.' },
  { key: 'electricity', memory: 'The electricity bill is paid by direct debit on the 28th.', query: 'how is the power invoice settled', distractor: 'The dust settled after the demolition.' },
  { key: 'shoes', memory: 'I keep my running shoes in the hallway closet.', query: 'where do I store my jogging sneakers', distractor: 'The store on the corner sells fresh bread.' },
  { key: 'rabies', memory: 'The dog needs its rabies vaccine before the trip abroad.', query: 'puppy shot required for travelling overseas', distractor: 'The shot from outside the box hit the post.' },
  { key: 'deposit', memory: 'We are saving for a deposit on a house.', query: 'putting money aside to buy a home', distractor: 'Putting practice on the green improved his score.' },
  { key: 'offsite', memory: 'The team offsite will be held in a castle in Scotland.', query: 'where is the company retreat', distractor: 'The army began its retreat at dawn.' },
];
