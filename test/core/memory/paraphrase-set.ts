/**
 * A labelled retrieval set for semantic search, written for this project: notes an agent might
 * keep, each with a question that asks for it in other words (no content word and no Porter stem
 * in common with the note: `paraphrase-set.test.ts` checks it), and a distractor note that reuses
 * a word of the question in another sense ("plane" of geometry for a question about a flight), so
 * a purely lexical match points at the wrong note.
 *
 * `EXACT_QUERIES` are the other side: names, ids and rare words that must find the one note
 * holding them, among all notes of both sets.
 */
export interface ParaphraseItem {
  /** Identifies the note. */
  key: string;
  /** The note that answers the question. */
  memory: string;
  /** The question, sharing no content word or stem with the note. */
  query: string;
  /** A note that shares a word with the question, in another sense. */
  distractor: string;
}

export const PARAPHRASE_SET: readonly ParaphraseItem[] = [
  { key: 'cat', memory: 'My cat Tom sleeps most of the afternoon on the armchair.', query: 'feline pet that naps a lot', distractor: 'Pet peeve: colleagues who reply-all to every email thread.' },
  { key: 'allergy', memory: 'Bob is allergic to peanuts and shellfish.', query: 'which foods trigger a bad reaction', distractor: 'The audience reaction to the keynote was enthusiastic.' },
  { key: 'flight', memory: 'The flight to Berlin departs at 7:40 from gate B12.', query: 'when does my plane take off', distractor: 'The plane geometry homework covers triangles and angles.' },
  { key: 'rent', memory: 'Rent for the apartment is due on the first of every month.', query: 'when must I pay for my flat', distractor: 'The flat tyre on the bike still needs patching.' },
  { key: 'dentist', memory: 'The dentist said I need a filling in a lower molar.', query: 'tooth cavity treatment', distractor: 'The wall cavity behind the bathroom is insulated with foam.' },
  { key: 'kindergarten', memory: 'Our daughter starts kindergarten in September.', query: 'when does the child begin school', distractor: 'The school of fish scattered when the diver approached.' },
  { key: 'brakes', memory: "The car's brakes squeal on wet roads.", query: 'vehicle noise while slowing down', distractor: 'The white noise machine helps the baby sleep.' },
  { key: 'violin', memory: 'I am learning to play the violin with a teacher on Saturdays.', query: 'string instrument lessons at the weekend', distractor: 'The string of failed builds started after the merge.' },
  {
    key: 'laptop-return',
    memory: 'The company laptop must be returned to IT when an employee leaves.',
    query: 'handing back the work computer after quitting',
    distractor: 'Work on the bridge will close the road for a week.',
  },
  { key: 'lasagna', memory: "Grandma's lasagna uses ricotta, basil and slow-cooked beef sauce.", query: 'Italian pasta dish my grandmother makes', distractor: 'The satellite dish on the roof needs realigning.' },
  {
    key: 'tomatoes',
    memory: 'Water the tomato plants twice a week in summer.',
    query: 'how often should the vegetables in the garden get irrigated',
    distractor: 'Garden party invitations went out to the whole street.',
  },
  { key: 'antibiotics', memory: 'The doctor prescribed antibiotics for ten days.', query: 'how long do I take the medicine the physician gave me', distractor: 'The long jump final is on Sunday.' },
  { key: 'vegetarian', memory: 'Alice is vegetarian and never eats meat.', query: 'dietary restrictions of our colleague', distractor: 'Restrictions on parking downtown start next month.' },
  { key: 'wifi', memory: 'The wifi password for the guest network is printed on the router.', query: 'how do visitors get internet access', distractor: 'Access to the archive requires a signed request.' },
  { key: 'puppy', memory: 'We adopted a puppy named Rex from the shelter last spring.', query: 'when did we get our dog', distractor: 'Get the dog-eared copy of the contract from the filing cabinet.' },
  { key: 'passport', memory: 'My passport expires in March next year.', query: 'travel document validity', distractor: 'The document template for invoices lives in the shared drive.' },
  { key: 'board', memory: 'The quarterly board meeting was moved to Thursday afternoon.', query: 'when do the directors convene', distractor: "The film's directors gave an interview on the radio." },
  { key: 'engaged', memory: 'Sarah got engaged to her boyfriend in Paris.', query: 'who is getting married to her partner', distractor: 'Our partner company handles logistics in Asia.' },
  { key: 'basement', memory: 'The basement flooded after the heavy storm on Sunday.', query: 'water damage downstairs from the rain', distractor: 'Rain check: the team dinner is postponed.' },
  { key: 'jogging', memory: 'I jog five kilometres every morning before breakfast.', query: 'daily running routine', distractor: 'The running total of expenses is in the spreadsheet.' },
  { key: 'plumber', memory: 'The invoice from the plumber is still unpaid.', query: 'outstanding bill for fixing the pipes', distractor: 'Bill from accounting called about the audit.' },
  { key: 'mom-birthday', memory: "Mom's birthday is on the 14th of June.", query: 'when was my mother born', distractor: 'The idea was born during a hackathon.' },
  { key: 'espresso', memory: 'The espresso machine in the kitchen is broken.', query: 'coffee maker not working', distractor: 'Working hours in the office are nine to five.' },
  { key: 'tournament', memory: 'Our team won the regional soccer tournament.', query: 'football cup triumph', distractor: 'A cup of tea helps in the afternoon.' },
  { key: 'thunder', memory: 'The kids are scared of thunder and lightning.', query: 'children afraid during storms', distractor: 'Storms of criticism followed the announcement.' },
  { key: 'surgery', memory: 'Uncle Joe is recovering from knee surgery.', query: 'relative healing after an operation', distractor: 'The operation of the new factory line begins in June.' },
  { key: 'lease', memory: 'The lease on the office ends in October.', query: 'when does the workplace rental contract expire', distractor: 'The contract bridge club meets on Tuesdays.' },
  { key: 'saving', memory: 'I am saving money to buy a house.', query: 'putting aside funds for a home', distractor: 'Home page redesign ships next sprint.' },
  { key: 'bakery', memory: 'The bakery on Main Street sells sourdough bread.', query: 'where to get a fresh loaf', distractor: 'Fresh graduates join the engineering team in July.' },
  { key: 'skiing', memory: 'Tom broke his arm skiing in the Alps.', query: 'fractured limb during a winter sports trip', distractor: 'The trip wire on the alarm was replaced.' },
  { key: 'toner', memory: 'The printer on the third floor is out of toner.', query: 'ink cartridge empty', distractor: 'Empty promises from the vendor delayed the project.' },
  { key: 'sister', memory: 'My sister lives in Toronto with her two sons.', query: "which city is my sibling's home", distractor: "The sibling process inherits its parent's environment variables." },
  { key: 'new-hire', memory: 'The new hire starts Monday and needs a badge.', query: 'onboarding the recent recruit', distractor: 'The recent rise in interest rates worries investors.' },
  { key: 'heating', memory: "The heating in the bedroom doesn't work in winter.", query: "radiator broken when it's cold", distractor: 'Cold brew is popular in the café.' },
  { key: 'anniversary', memory: 'We celebrate our wedding anniversary on August 2.', query: 'marriage date to remember', distractor: 'The date palms in the courtyard need pruning.' },
  { key: 'receipts', memory: 'The accountant needs receipts for all travel expenses.', query: 'bookkeeper wants proof of trip costs', distractor: 'Proof of concept for the search engine is ready.' },
  { key: 'baby', memory: 'The baby wakes up crying around three in the morning.', query: 'infant up at night in tears', distractor: 'Tears in the tent fabric were patched.' },
  { key: 'neighbour-dog', memory: "Our neighbour's dog barks whenever the mail arrives.", query: 'noisy hound next door during post delivery', distractor: 'Post the minutes of the meeting to the channel.' },
  { key: 'waterfall', memory: 'The hiking trail to the waterfall is closed for repairs.', query: 'path to the cascade shut for maintenance', distractor: 'The path variable must include the tools folder.' },
  { key: 'spare-keys', memory: 'I keep my spare keys under the flower pot.', query: 'hidden backup for unlocking the door', distractor: 'Backup of the database runs at midnight.' },
  { key: 'pharmacy', memory: 'The pharmacy closes at 6 pm on weekends.', query: 'drugstore hours on Saturday and Sunday', distractor: 'Hours of video footage need editing.' },
  { key: 'grandfather', memory: 'My grandfather fought in the war and tells stories about it.', query: "veteran relative's memories of battle", distractor: 'Memories of the server are full; add more RAM.' },
  { key: 'overdraft', memory: 'The bank charged a fee for the overdraft.', query: 'penalty from the lender for going below zero', distractor: 'The penalty kick decided the match.' },
  { key: 'pregnant', memory: 'Lisa is pregnant and due in November.', query: 'colleague expecting a baby', distractor: 'Expecting a delay, the team shipped early.' },
  { key: 'tires', memory: 'The tires should be swapped for winter ones in October.', query: 'seasonal wheel change for the cold months', distractor: 'Change of plans: the offsite is cancelled.' },
  { key: 'cleaner', memory: 'Our cleaner comes every other Wednesday.', query: 'housekeeper visits twice a month', distractor: 'The museum visits were popular with the school.' },
  { key: 'fridge', memory: 'The fridge is making a loud humming sound.', query: 'refrigerator buzzing', distractor: 'Buzzing with ideas after the workshop.' },
  { key: 'wallet', memory: 'I lost my wallet on the bus yesterday.', query: 'misplaced purse on public transport', distractor: 'Transport layer security certificates expire soon.' },
  { key: 'climate-talk', memory: 'The conference talk was about climate change and sea levels.', query: 'presentation on global warming and rising oceans', distractor: 'Global variables make the code hard to test.' },
  { key: 'bicycle', memory: 'My son wants a bicycle for Christmas.', query: 'gift idea for the boy: a bike', distractor: 'Idea board for the marketing campaign.' },
  { key: 'roof', memory: 'The roof leaks when it rains heavily.', query: 'water dripping through the ceiling during downpours', distractor: 'The glass ceiling limits promotions for women.' },
  { key: 'flying-fear', memory: 'Jake is afraid of flying and prefers trains.', query: 'fear of planes, likes rail travel', distractor: 'The curtain rail fell off the wall.' },
  { key: 'pool', memory: 'The swimming pool opens at 6 am.', query: 'when can I start doing laps in the water', distractor: 'The cat laps up the milk.' },
  { key: 'garage', memory: 'The garage door opener needs new batteries.', query: 'remote for the carport runs out of power', distractor: 'Power of attorney papers are with the lawyer.' },
  { key: 'groceries', memory: 'We are out of milk, eggs and butter.', query: 'what groceries to buy', distractor: 'Buy-in from leadership is needed for the reorg.' },
  { key: 'piano', memory: 'The piano needs tuning before the recital.', query: 'instrument adjustment ahead of the concert', distractor: 'Adjustment of the budget forecast is due Friday.' },
  { key: 'kitten', memory: 'The kitten scratched the leather couch.', query: 'young feline damaged the sofa', distractor: 'Young professionals moved into the new tower.' },
  { key: 'hotel-view', memory: 'The hotel room overlooks the harbour.', query: 'lodging with a sea view', distractor: 'View the report in the dashboard.' },
  { key: 'retiring', memory: 'My dad is retiring next year after forty years at the factory.', query: 'father leaving his job soon', distractor: 'Job queue is backed up on the build server.' },
  { key: 'electricity', memory: 'The electricity bill doubled this winter.', query: 'power costs went up a lot in the cold season', distractor: 'Season three of the show starts in May.' },
  { key: 'japanese', memory: 'Emma speaks fluent Japanese.', query: 'which languages does she know', distractor: 'Languages like Rust and Go are used by the platform team.' },
  { key: 'parking-ticket', memory: 'The parking ticket must be paid within 21 days.', query: 'fine for leaving the vehicle in the wrong spot', distractor: 'Fine-grained permissions are in the admin panel.' },
];

/**
 * Queries naming an exact term (a name, an id, a rare word) with the key of the one note holding
 * it: among the notes of `labelled-set.ts` (keys as there) and of {@link PARAPHRASE_SET}.
 */
export const EXACT_QUERIES: ReadonlyArray<[query: string, relevant: string]> = [
  ['Dana Whitfield', 'invoice'],
  ['customer 4471', 'refund'],
  ['Biscuit', 'vet'],
  ['Harbor-Guest', 'wifi'],
  ['Lufthansa', 'flight'],
  ['Valencia', 'language'],
  ['Erin', 'newsletter'],
  ['Kyoto ryokan', 'vacation'],
  ['gate B12', 'p:flight'],
  ['Rex', 'p:puppy'],
  ['Toronto', 'p:sister'],
  ['Uncle Joe', 'p:surgery'],
  ['sourdough', 'p:bakery'],
  ['TLS certificate', 'outage'],
];
