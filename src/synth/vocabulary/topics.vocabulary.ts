/**
 * What people post about: topics with their hashtags, subjects, opinions and questions. Post and
 * comment templates draw on these, so a post about #ai talks about evaluation and agents, not about
 * supply chains.
 */
import type { TopicKey } from './careers.vocabulary.ts'

export interface Topic {
  readonly key: TopicKey
  readonly label: string
  readonly tags: readonly string[]
  readonly subjects: readonly string[]
  /** Complete clauses, lower-case start, no final full stop. */
  readonly insights: readonly string[]
  readonly questions: readonly string[]
  /** Event names use the label; a few topics have their own well-known formats. */
  readonly events: readonly string[]
}

export const TOPICS: Readonly<Record<TopicKey, Topic>> = {
  ai: {
    key: 'ai', label: 'AI', tags: ['#ai', '#genai', '#machinelearning', '#llm', '#artificialintelligence'],
    subjects: ['AI agents', 'LLM evaluation', 'retrieval-augmented generation', 'AI governance', 'fine-tuning small models', 'AI copilots for support teams', 'responsible AI', 'prompt engineering'],
    insights: [
      'the hard part of shipping AI is evaluation, not the model',
      'most AI projects fail on data quality long before they fail on model choice',
      'a small, well-labelled dataset beats a giant noisy one almost every time',
      'the best AI features feel boring: they quietly remove a step from someone\'s day',
      'if you cannot say how you will measure an AI feature, you are not ready to build it',
      'human review is a feature, not a failure of automation',
    ],
    questions: ['How is your team measuring the quality of AI features in production?', 'Which AI tool actually stuck in your daily workflow this year?', 'Where do you draw the line between automation and human judgement?'],
    events: ['AI Summit', 'Applied AI Conference', 'GenAI Days'],
  },
  cloud: {
    key: 'cloud', label: 'Cloud', tags: ['#cloud', '#kubernetes', '#devops', '#platformengineering', '#aws'],
    subjects: ['Kubernetes cost control', 'platform engineering', 'observability', 'infrastructure as code', 'multi-region failover', 'FinOps', 'incident response'],
    insights: [
      'the cheapest cloud resource is the one you remember to turn off',
      'a platform team succeeds when product teams stop noticing it',
      'every alert that nobody acts on is teaching your on-call to ignore alerts',
      'boring infrastructure is a competitive advantage',
      'you do not need Kubernetes until you really, really do',
    ],
    questions: ['What is the one alert you would never turn off?', 'How do you keep cloud spend visible to the teams that create it?', 'Build or buy for your internal developer platform?'],
    events: ['KubeCon', 'Cloud Native Days', 'DevOpsDays'],
  },
  security: {
    key: 'security', label: 'Security', tags: ['#cybersecurity', '#infosec', '#zerotrust', '#security'],
    subjects: ['zero trust', 'phishing-resistant MFA', 'supply chain security', 'incident response', 'security awareness training', 'secrets management'],
    insights: [
      'most breaches still start with a password that should not have worked',
      'security teams win by making the secure path the easy path',
      'an incident response plan you have never rehearsed is a document, not a plan',
      'asset inventory is unglamorous and it is where every programme should start',
    ],
    questions: ['What security control gave you the biggest return for the least friction?', 'How often does your team run incident drills?'],
    events: ['Security Summit', 'BSides', 'Cyber Defence Forum'],
  },
  data: {
    key: 'data', label: 'Data', tags: ['#data', '#dataengineering', '#analytics', '#dataquality', '#datascience'],
    subjects: ['data contracts', 'the modern data stack', 'data quality', 'self-serve analytics', 'metric definitions', 'streaming pipelines'],
    insights: [
      'a metric without an owner is just a number that will eventually be wrong',
      'the fastest way to lose trust in a dashboard is to let two of them disagree',
      'data quality is a product problem wearing an engineering costume',
      'most companies need fewer dashboards and more decisions',
    ],
    questions: ['Who owns metric definitions at your company?', 'What is the most useful data quality check you have ever added?'],
    events: ['Data Council', 'Big Data Summit', 'Analytics Engineering Meetup'],
  },
  engineering: {
    key: 'engineering', label: 'Engineering', tags: ['#softwareengineering', '#opensource', '#typescript', '#developerexperience', '#programming'],
    subjects: ['code review', 'technical debt', 'developer experience', 'testing in production', 'API design', 'open source maintenance', 'on-call health'],
    insights: [
      'the best code review comment is a question, not a verdict',
      'technical debt is only debt if you plan to pay it back; otherwise it is just the architecture',
      'small pull requests are a kindness to your future self',
      'write the README before the code and half the design problems show up early',
      'a flaky test is worse than no test because it teaches people to ignore red builds',
    ],
    questions: ['What is one engineering practice your team adopted this year that actually stuck?', 'How do you make time for technical debt?'],
    events: ['JSConf', 'QCon', 'Craft Conference'],
  },
  product: {
    key: 'product', label: 'Product', tags: ['#productmanagement', '#product', '#ux', '#productdiscovery'],
    subjects: ['product discovery', 'pricing and packaging', 'roadmap planning', 'user onboarding', 'product-led growth', 'customer interviews'],
    insights: [
      'the roadmap is a communication tool, not a promise',
      'if every feature is a priority, none of them are',
      'customers describe problems brilliantly and solutions badly, so listen for the problem',
      'the most valuable thing a PM can do some weeks is say no',
      'onboarding is where most products quietly lose the people they worked hardest to win',
    ],
    questions: ['How many customer conversations does your product team have each week?', 'What is your favourite way to say no to a feature request?'],
    events: ['Mind the Product', 'ProductCon', 'Product Leaders Forum'],
  },
  design: {
    key: 'design', label: 'Design', tags: ['#design', '#ux', '#accessibility', '#designsystems'],
    subjects: ['design systems', 'accessibility', 'UX research', 'interaction design', 'design critique', 'prototyping with real data'],
    insights: [
      'accessibility is not a feature, it is the baseline',
      'a design system is a product with internal customers, so treat it like one',
      'the best critique sessions separate what we saw from what we think',
      'five user interviews will surprise you more than fifty opinions in a meeting',
    ],
    questions: ['How do you run design critique without it turning into a vote?', 'What accessibility check should every team run before shipping?'],
    events: ['Config', 'UX London', 'Design Matters'],
  },
  leadership: {
    key: 'leadership', label: 'Leadership', tags: ['#leadership', '#management', '#careers', '#mentorship', '#teamwork'],
    subjects: ['one-on-ones', 'giving feedback', 'first-time management', 'hiring well', 'remote teams', 'psychological safety', 'delegation'],
    insights: [
      'your team hears what you repeat, not what you say once',
      'clarity is kindness, especially when the news is hard',
      'the best managers I had made their decisions easy to disagree with',
      'delegating the outcome, not the task, is what actually grows people',
      'burnout is usually a prioritisation problem that nobody owned',
      'a one-on-one belongs to the report, not the manager',
    ],
    questions: ['What is the best piece of feedback you have ever received?', 'What did you wish someone had told you in your first year as a manager?'],
    events: ['Leadership Summit', 'LeadDev', 'Women in Leadership Forum'],
  },
  sales: {
    key: 'sales', label: 'Sales', tags: ['#sales', '#b2b', '#customersuccess', '#saas', '#revenue'],
    subjects: ['discovery calls', 'enterprise deals', 'pipeline reviews', 'customer retention', 'renewals', 'sales enablement'],
    insights: [
      'the best discovery calls are 70% listening',
      'retention is the quiet engine of every SaaS business',
      'a deal without a champion is a forecast, not a deal',
      'the fastest way to lose an enterprise deal is to answer questions nobody asked',
    ],
    questions: ['What is your favourite discovery question?', 'How early do you bring customer success into a deal?'],
    events: ['SaaStr Annual', 'Sales Leaders Summit', 'Revenue Summit'],
  },
  marketing: {
    key: 'marketing', label: 'Marketing', tags: ['#marketing', '#branding', '#contentmarketing', '#seo', '#b2bmarketing'],
    subjects: ['brand positioning', 'content strategy', 'B2B storytelling', 'attribution', 'community-led growth', 'launch planning'],
    insights: [
      'people remember stories, not feature lists',
      'consistency beats virality for building a brand',
      'attribution models are opinions with spreadsheets attached',
      'your best content usually answers the question sales hears every day',
    ],
    questions: ['What is the best B2B campaign you have seen this year?', 'How do you measure brand in a way your CFO trusts?'],
    events: ['Content Marketing World', 'Brand Summit', 'Growth Marketing Conference'],
  },
  people: {
    key: 'people', label: 'People', tags: ['#hr', '#talentacquisition', '#futureofwork', '#remotework', '#employerbranding', '#hiring'],
    subjects: ['structured interviews', 'candidate experience', 'onboarding', 'internal mobility', 'flexible work', 'career ladders'],
    insights: [
      'candidate experience is employer branding in its most honest form',
      'a structured interview is fairer to candidates and more useful to the team',
      'onboarding starts the day the offer is signed, not the first day at work',
      'people leave managers and unclear expectations far more often than companies',
    ],
    questions: ['What is the most thoughtful onboarding touch you have experienced?', 'How do you keep interviews consistent as the team scales?'],
    events: ['HR Tech Conference', 'Talent Summit', 'Future of Work Forum'],
  },
  finance: {
    key: 'finance', label: 'Finance', tags: ['#finance', '#fintech', '#payments', '#riskmanagement', '#cfo'],
    subjects: ['cash flow forecasting', 'real-time payments', 'unit economics', 'the monthly close', 'embedded finance', 'credit risk'],
    insights: [
      'a forecast is only useful if people trust it enough to act on it',
      'the monthly close is a product, and finance teams are its designers',
      'unit economics tell you the truth long before the P&L does',
      'good finance partners say "yes, if" far more often than "no"',
    ],
    questions: ['How far ahead does your team forecast cash?', 'Which finance process did automation genuinely improve for you?'],
    events: ['Money20/20', 'Fintech Week', 'CFO Forum'],
  },
  health: {
    key: 'health', label: 'Healthcare', tags: ['#healthcare', '#digitalhealth', '#clinicaltrials', '#medtech', '#patientcare'],
    subjects: ['remote patient monitoring', 'clinical trial diversity', 'interoperability', 'nurse staffing', 'AI in diagnostics', 'patient experience'],
    insights: [
      'the best health tech gives clinicians time back instead of adding clicks',
      'trial diversity is a design decision made long before the first patient enrols',
      'interoperability is still the unsolved problem behind most digital health promises',
      'patients notice when systems talk to each other, and they notice even more when they do not',
    ],
    questions: ['What is one change that would give clinicians more time with patients?', 'How is your organisation approaching AI in clinical workflows?'],
    events: ['HLTH', 'Digital Health Summit', 'Clinical Trials Europe'],
  },
  sustainability: {
    key: 'sustainability', label: 'Sustainability', tags: ['#sustainability', '#climate', '#energytransition', '#renewableenergy', '#netzero'],
    subjects: ['scope 3 emissions', 'grid-scale storage', 'circular supply chains', 'carbon accounting', 'EV fleet transition', 'green buildings'],
    insights: [
      'you cannot reduce what you have not measured, and most scope 3 is not measured yet',
      'the energy transition is now mostly a permitting and grid problem',
      'sustainability targets only matter when they show up in procurement decisions',
      'the greenest product is often the one that lasts twice as long',
    ],
    questions: ['What sustainability initiative actually changed how your company operates?', 'How are you tackling scope 3 data?'],
    events: ['Climate Week', 'Energy Transition Summit', 'Sustainability Forum'],
  },
  supplychain: {
    key: 'supplychain', label: 'Supply Chain', tags: ['#supplychain', '#logistics', '#operations', '#procurement'],
    subjects: ['nearshoring', 'inventory planning', 'last-mile delivery', 'supplier diversification', 'warehouse automation', 'demand forecasting'],
    insights: [
      'resilience costs money right up until the day it saves the year',
      'most supply chain problems are information problems first',
      'automation in the warehouse works best when the people on the floor design it with you',
      'a forecast that is slightly wrong but updated daily beats a perfect one updated monthly',
    ],
    questions: ['What did the last disruption teach your team?', 'Where has automation paid off fastest in your operation?'],
    events: ['Logistics Summit', 'Supply Chain Week', 'ProMat'],
  },
  education: {
    key: 'education', label: 'Education', tags: ['#education', '#research', '#edtech', '#highereducation', '#lifelonglearning'],
    subjects: ['AI in the classroom', 'open access publishing', 'skills-based learning', 'student wellbeing', 'research funding', 'microcredentials'],
    insights: [
      'students learn more from feedback than from grades',
      'the best research questions come from talking to people outside your field',
      'lifelong learning only works if employers give people time to do it',
      'assessment has to change now that every student has an AI assistant',
    ],
    questions: ['How is your institution adapting assessment to AI?', 'What course changed the direction of your career?'],
    events: ['EdTech Summit', 'Teaching & Learning Conference', 'Research Futures Forum'],
  },
  legal: {
    key: 'legal', label: 'Legal', tags: ['#legal', '#compliance', '#privacy', '#gdpr', '#legaltech'],
    subjects: ['the EU AI Act', 'privacy by design', 'contract automation', 'data transfers', 'regulatory change management', 'ESG reporting rules'],
    insights: [
      'the best legal teams are the ones the business calls early',
      'privacy by design is far cheaper than privacy by retrofit',
      'a contract playbook saves more time than any tool',
      'regulation moves slowly until suddenly it does not',
    ],
    questions: ['How is your team preparing for the EU AI Act?', 'What is the one clause you always read first?'],
    events: ['Legal Innovation Forum', 'Privacy Summit', 'GC Summit'],
  },
  startups: {
    key: 'startups', label: 'Startups', tags: ['#startups', '#entrepreneurship', '#venturecapital', '#founders'],
    subjects: ['fundraising', 'finding product-market fit', 'hiring the first ten people', 'bootstrapping', 'founder burnout', 'pricing early on'],
    insights: [
      'the first ten hires decide the culture whether you plan it or not',
      'raising money is a means, not a milestone',
      'talk to customers until it is uncomfortable, then talk to a few more',
      'default alive beats default funded',
      'most startups die of indigestion, not starvation',
    ],
    questions: ['What is the best advice you got as a first-time founder?', 'When did you know you had product-market fit?'],
    events: ['Web Summit', 'Startup Grind', 'Founders Forum'],
  },
}

/** Lessons anyone can have learned; numbered lists mix these with topic insights. */
export const GENERAL_LESSONS = [
  'Write things down. Memory is a terrible project management tool.',
  'Ask for feedback early, when it is still cheap to act on.',
  'Protect focus time like you protect meetings with customers.',
  'Celebrate small wins; they are most of the wins.',
  'Say the hard thing kindly, and say it sooner.',
  'Hire for curiosity. Skills can be taught, curiosity rarely can.',
  'Ship, learn, adjust. A plan survives exactly until the first customer sees it.',
  'Your network is built long before you need it.',
  'Done is better than perfect, but documented is better than done.',
  'Rest is part of the work, not a reward for it.',
  'Assume good intent, then verify the details.',
  'The meeting that could have been an email usually should have been a decision.',
] as const

export const OPENERS_THOUGHT = [
  'Unpopular opinion:',
  'Hot take:',
  'Something I keep coming back to:',
  'A reminder I needed this week:',
  'After many conversations with teams this quarter, one pattern stands out:',
  'I changed my mind about this recently:',
  'Simple truth that took me years to learn:',
] as const

export const EMOJI = ['🚀', '🎉', '🙌', '💡', '👏', '✨', '📣', '🔥', '🙏', '👇', '📈', '🤝'] as const

export const PRODUCT_NOUNS = ['Insights', 'Studio', 'Flow', 'Copilot', 'Pulse', 'Connect', 'Atlas', 'Workbench', 'Hub', 'Signals', 'Edge', 'Assist'] as const

export const PRODUCT_BENEFITS = [
  'turns hours of manual reporting into a two-minute review',
  'lets teams spot problems before customers do',
  'brings every conversation with a customer into one timeline',
  'automates the busywork so people can focus on decisions',
  'gives finance and operations the same numbers, in real time',
  'makes onboarding new teammates a matter of days instead of weeks',
  'answers questions about your own data in plain language',
] as const

export const ACHIEVEMENTS = [
  'shipping a release that took two years of groundwork',
  'hitting our biggest quarter ever',
  'turning around a project everyone had written off',
  'running a flawless migration over the weekend',
  'welcoming twelve new teammates this month',
  'getting our first enterprise customer live in record time',
  'the best customer satisfaction score we have ever had',
] as const

export const COMPANY_CULTURE = [
  'Every Friday afternoon our teams stop for demo hour: anyone can show what they built, however small.',
  'This month we ran our first company-wide hack week. Forty-two projects, six of them already on the roadmap.',
  'We just wrapped our annual offsite. Two days of strategy, one day of volunteering, and far too much coffee.',
  'Our mentoring programme paired 60 people across teams this year. Here is what they told us they learned.',
  'We believe great work happens when people have time to think. That is why we keep Wednesday mornings meeting-free.',
] as const

/** What an organisation counts when it celebrates, by industry cluster. */
export const MILESTONES: Readonly<Record<string, readonly string[]>> = {
  default: ['customers', 'orders shipped', 'customers served'],
  tech: ['customers', 'teams using the product every day', 'developers in our community'],
  health: ['patients supported', 'clinicians using our tools'],
  logistics: ['deliveries completed', 'shipments on time'],
  education: ['alumni worldwide', 'students enrolled this year', 'learners on our courses'],
  nonprofit: ['young people supported', 'volunteers', 'families reached'],
  government: ['residents using our online services', 'applications processed online'],
  energy: ['homes powered by clean energy', 'charging sessions'],
  finance: ['customers', 'small businesses served'],
}

export const HIRING_PERKS = [
  'flexible hybrid setup',
  'a real learning budget',
  'a team that cares about doing things properly',
  'ownership from day one',
  'a calm, no-drama culture',
  'remote-friendly across European time zones',
] as const

/** Comment lines by what the post is about; `n` is the first name addressed, `s` the post's subject. */
export const COMMENTS = {
  newJob: [
    (n: string) => `Congratulations, ${n}! 🎉`,
    (n: string) => `Well deserved, ${n}!`,
    (n: string) => `Huge congrats ${n}, they are lucky to have you.`,
    (n: string) => `So happy for you, ${n}! Wishing you all the best in the new role.`,
    (n: string) => `Amazing news ${n} 👏`,
  ],
  anniversary: [
    (n: string) => `Happy work anniversary, ${n}! 🎉`,
    (n: string) => `Congrats ${n}, what a journey!`,
    (n: string) => `Well deserved, ${n}. Here's to the next chapter.`,
  ],
  learning: [
    (n: string) => `Congratulations, ${n}! 🎉`,
    (n: string) => `Well done ${n}, that exam is no joke.`,
    (n: string) => `Great achievement, ${n}!`,
  ],
  kudos: [
    () => 'Congrats to the whole team! 👏',
    () => 'Well deserved!',
    () => 'Proud to be part of this team.',
    () => 'Amazing work, everyone.',
  ],
  agree: [
    (n: string, s: string) => `This is spot on about ${s}.`,
    (n: string, s: string) => `Couldn't agree more, ${n}. We learned the same lesson about ${s} the hard way.`,
    (n: string) => `Great insights, thanks for sharing ${n}.`,
    (n: string) => `Saving this one. Thanks ${n}!`,
    (n: string, s: string) => `Really useful perspective on ${s}. Would love to hear how you got buy-in from leadership.`,
    (n: string, s: string) => `Interesting take. In my experience ${s} is as much about people as about process.`,
  ],
  lessons: [
    (n: string) => `Point 2 resonates a lot. Thanks for writing this up, ${n}.`,
    (n: string) => `I'd add one more: write down what you decided and why. Great list, ${n}.`,
    (n: string, s: string) => `Bookmarking this. The part about ${s} is exactly what we are going through.`,
    () => 'Number 3 is underrated.',
  ],
  hiring: [
    () => 'Sharing with my network!',
    () => 'Is this role open to remote candidates?',
    () => 'Just applied, excited about this one.',
    (n: string) => `Great team to join. I worked with ${n} and can vouch for it.`,
    () => 'Tagging a few folks who might be interested.',
  ],
  event: [
    (n: string) => `Great meeting you there, ${n}!`,
    () => 'Thanks for the recap, I missed the afternoon sessions.',
    (n: string) => `Your talk was a highlight for me, ${n}.`,
    () => 'Already looking forward to next year.',
  ],
  launch: [
    () => 'Congrats to the whole team! 🚀',
    () => 'Can\'t wait to try this.',
    () => 'This solves a real problem for us. Is there a trial?',
    (n: string) => `Huge milestone, well done ${n} and team.`,
  ],
  question: [
    (n: string, s: string) => `For us it was ${s}, by a wide margin.`,
    () => 'Great question. Following to see the answers.',
    (n: string, s: string) => `Honestly: start small with ${s} and measure everything.`,
    () => 'We tried three approaches before one stuck. Happy to share notes.',
  ],
} as const

/** Replies: the post's author thanking a commenter, or someone else chiming in. */
export const REPLIES = {
  byAuthor: [
    (n: string) => `Thanks, ${n}!`,
    (n: string) => `Appreciate it, ${n} 🙏`,
    (n: string) => `Thank you ${n}, means a lot.`,
    (n: string) => `Agreed, ${n}. Let's catch up soon.`,
  ],
  byAuthorHiring: [
    () => 'Yes! Send me a message and I\'ll share the details.',
    (n: string) => `Thanks for sharing, ${n}!`,
    () => 'Hybrid by default, remote possible for the right person.',
  ],
  byOthers: [
    (n: string) => `+1, well said ${n}.`,
    (n: string) => `Same experience here, ${n}.`,
    () => 'Agreed!',
  ],
} as const

export const ARTICLE_TITLES = [
  (s: string, n: number) => `What ${n} years of ${s} taught me`,
  (s: string) => `${capital(s)}: a practical guide`,
  (s: string) => `The hidden cost of ignoring ${s}`,
  (s: string, _n: number, company: string) => `How we approached ${s} at ${company}`,
  (s: string) => `A field guide to ${s}`,
  (s: string, n: number) => `${n} mistakes to avoid with ${s}`,
  (s: string) => `Why ${s} matters more than ever`,
  (s: string) => `Rethinking ${s} for the next five years`,
] as const

export function capital(s: string): string {
  return s.length === 0 ? s : (s[0] as string).toUpperCase() + s.slice(1)
}
