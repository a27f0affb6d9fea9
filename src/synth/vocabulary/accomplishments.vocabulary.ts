/**
 * The accomplishment sections of a profile (publications, projects, honors, courses, organizations,
 * patents, volunteering), keyed by job function where the function shapes them. A function missing
 * from a table draws from its `default` entry.
 */
import type { VOLUNTEER_CAUSES } from './careers.vocabulary.ts'
import { capital } from './topics.vocabulary.ts'

type ByFunction<T> = Readonly<Record<string, readonly T[]>> & { readonly default: readonly T[] }

/** Where a publication appears: a journal has DOIs, a preprint server its own ids, a website plain links. */
export interface Publisher {
  readonly name: string
  readonly kind: 'journal' | 'preprint' | 'web'
  /** Host of a web publisher's article links. */
  readonly host?: string
}

const journal = (name: string): Publisher => ({ name, kind: 'journal' })
const web = (name: string, host: string): Publisher => ({ name, kind: 'web', host })
const ARXIV: Publisher = { name: 'arXiv', kind: 'preprint' }

export const PUBLISHERS: ByFunction<Publisher> = {
  research: [
    journal('Nature Communications'), journal('PLOS ONE'), journal('Proceedings of the National Academy of Sciences'),
    journal('Physical Review Letters'), journal('Computers & Education'), journal('Journal of Applied Physics'),
    journal('Scientific Reports'), journal('Higher Education'), ARXIV,
  ],
  health: [
    journal('BMJ Open'), journal('JAMA Network Open'), journal('The Lancet Digital Health'), journal('Journal of Clinical Oncology'),
    journal('Journal of Advanced Nursing'), journal('American Journal of Health-System Pharmacy'), journal('Clinical Trials'),
  ],
  data: [ARXIV, journal('Journal of Machine Learning Research'), journal('Proceedings of KDD'), journal('Proceedings of NeurIPS'), web('Towards Data Science', 'towardsdatascience.com')],
  engineering: [journal('IEEE Software'), journal('ACM Queue'), web('InfoQ', 'www.infoq.com'), web('Medium', 'medium.com'), journal('Proceedings of the USENIX Annual Technical Conference')],
  finance: [journal('Journal of Corporate Finance'), web('CFA Institute Enterprising Investor', 'blogs.cfainstitute.org'), web('Medium', 'medium.com')],
  legal: [web('IAPP Privacy Perspectives', 'iapp.org'), journal('Computer Law & Security Review'), web('Law360', 'www.law360.com')],
  default: [
    web('Harvard Business Review', 'hbr.org'), web('MIT Sloan Management Review', 'sloanreview.mit.edu'), web('Forbes', 'www.forbes.com'),
    web('Medium', 'medium.com'), web('Fast Company', 'www.fastcompany.com'),
  ],
}

/** Titles of papers (`s` a subject, `n` a count). */
export const PAPER_TITLES = [
  (s: string) => `${capital(s)}: evidence from a multi-site study`,
  (s: string) => `Rethinking ${s}: a systematic review`,
  (s: string) => `On the limits of ${s}`,
  (s: string) => `A longitudinal analysis of ${s}`,
  (s: string, n: number) => `${capital(s)} in practice: lessons from ${n} deployments`,
  (s: string) => `Measuring the effects of ${s}`,
] as const

/** Titles of practitioner pieces (`s` a subject). */
export const ESSAY_TITLES = [
  (s: string) => `What we learned about ${s} in production`,
  (s: string) => `A practical guide to ${s}`,
  (s: string) => `${capital(s)}: five mistakes to avoid`,
  (s: string) => `Why ${s} is harder than it looks`,
  (s: string) => `${capital(s)} for growing teams`,
] as const

/** What a study spans ("across 12 hospitals"). */
export const STUDY_UNITS: ByFunction<string> = {
  health: ['hospitals', 'clinics', 'trial sites'],
  research: ['institutions', 'universities', 'cohorts', 'countries'],
  default: ['organisations', 'teams', 'companies', 'datasets'],
}

export const PROJECTS: ByFunction<string> = {
  engineering: ['Internal developer portal', 'Migration to event-driven services', 'Real-time notifications service', 'Load-testing toolkit', 'Feature-flag platform', 'Open-source CLI for release notes'],
  data: ['Churn prediction model', 'Company-wide metrics layer', 'Demand forecasting pipeline', 'Support ticket classifier', 'Experimentation dashboard'],
  product: ['Self-serve onboarding redesign', 'Pricing and packaging revamp', 'Mobile app relaunch', 'Customer feedback hub'],
  design: ['Design system v2', 'Checkout redesign', 'Accessibility audit of the web app', 'Mobile app visual refresh'],
  sales: ['Partner channel launch', 'Mid-market sales playbook', 'Enterprise deal desk'],
  marketing: ['Brand refresh', 'Content hub relaunch', 'Product launch campaign', 'Customer advocacy programme'],
  people: ['Structured interviewing rollout', 'Onboarding programme redesign', 'Career ladder framework', 'Employee engagement survey'],
  finance: ['Fundraising model and data room', 'Close automation', 'Pricing profitability analysis', 'Treasury dashboard'],
  operations: ['Warehouse layout optimisation', 'ERP rollout', 'Carrier tender', 'Lean transformation of the assembly line'],
  success: ['Customer health score', 'Onboarding playbook', 'Customer advisory board', 'Help centre relaunch'],
  health: ['Remote patient monitoring pilot', 'Sepsis early-warning protocol', 'Trial site activation tracker', 'Medication reconciliation audit'],
  research: ['Open dataset on learning outcomes', 'Replication study', 'Lab information system', 'First-year curriculum redesign'],
  legal: ['Contract template library', 'GDPR compliance programme', 'Legal intake automation', 'Whistleblowing policy rollout'],
  consulting: ['Operating model redesign for a retail bank', 'Cost transformation programme', 'Post-merger integration', 'Digital strategy for a logistics group'],
  default: ['Process improvement initiative', 'Team knowledge base', 'Quarterly planning overhaul'],
}

/** Honors a school gives. */
export const SCHOOL_HONORS = ["Dean's List", 'Academic Excellence Scholarship', 'Graduated with Distinction', 'Best Thesis Award', 'Merit Scholarship'] as const

/** Honors an employer gives, by function first. */
export const WORK_HONORS: ByFunction<string> = {
  sales: ["President's Club", 'Top Sales Performer of the Year', 'Rookie of the Year'],
  engineering: ['Hackathon Winner, 1st place', 'Engineering Excellence Award', 'Inventor Award'],
  data: ['Hackathon Winner, 1st place', 'Innovation Award'],
  research: ['Best Paper Award', 'Early Career Research Fellowship', 'Teaching Excellence Award'],
  health: ['Excellence in Patient Care Award', 'Nurse of the Year', 'Clinical Research Excellence Award'],
  design: ['Red Dot Award: Brands & Communication Design', 'Design Excellence Award'],
  marketing: ['Campaign of the Year', 'Marketing Excellence Award'],
  default: ['Employee of the Year', 'Spot Award', 'Values Award', "CEO's Award for Excellence", 'Top Performer'],
}

export const COURSES: ByFunction<readonly [name: string, department: string]> = {
  engineering: [['Data Structures and Algorithms', 'CS'], ['Operating Systems', 'CS'], ['Computer Networks', 'CS'], ['Database Systems', 'CS'], ['Distributed Systems', 'CS'], ['Software Engineering', 'CS'], ['Compilers', 'CS'], ['Linear Algebra', 'MATH']],
  data: [['Machine Learning', 'CS'], ['Probability and Statistics', 'STAT'], ['Statistical Inference', 'STAT'], ['Deep Learning', 'CS'], ['Linear Algebra', 'MATH'], ['Data Visualization', 'INFO'], ['Econometrics', 'ECON']],
  product: [['Product Management', 'MGMT'], ['Microeconomics', 'ECON'], ['Marketing Management', 'MKTG'], ['Human-Computer Interaction', 'CS'], ['Entrepreneurship', 'MGMT'], ['Operations Management', 'OPIM']],
  design: [['Interaction Design', 'DES'], ['Typography', 'DES'], ['User Research Methods', 'HCI'], ['Visual Communication', 'DES'], ['Human-Computer Interaction', 'HCI'], ['Cognitive Psychology', 'PSYC']],
  sales: [['Principles of Marketing', 'MKTG'], ['Negotiation', 'MGMT'], ['Consumer Behaviour', 'MKTG'], ['Business Communication', 'BUS'], ['Microeconomics', 'ECON']],
  marketing: [['Principles of Marketing', 'MKTG'], ['Consumer Behaviour', 'MKTG'], ['Digital Marketing', 'MKTG'], ['Brand Management', 'MKTG'], ['Marketing Research', 'MKTG'], ['Media and Society', 'COMM']],
  people: [['Organizational Behavior', 'MGMT'], ['Human Resource Management', 'HRM'], ['Labor Economics', 'ECON'], ['Industrial-Organizational Psychology', 'PSYC'], ['Employment Law', 'LAW']],
  finance: [['Corporate Finance', 'FIN'], ['Financial Accounting', 'ACCT'], ['Managerial Accounting', 'ACCT'], ['Investments', 'FIN'], ['Derivatives', 'FIN'], ['Econometrics', 'ECON']],
  operations: [['Operations Management', 'OPIM'], ['Supply Chain Management', 'SCM'], ['Logistics', 'SCM'], ['Quality Management', 'IE'], ['Operations Research', 'IE'], ['Project Management', 'MGMT']],
  health: [['Anatomy and Physiology', 'BIOL'], ['Pharmacology', 'PHAR'], ['Biostatistics', 'BIOS'], ['Epidemiology', 'EPI'], ['Medical Ethics', 'MED'], ['Pathophysiology', 'NURS']],
  research: [['Research Methods', 'RES'], ['Advanced Statistics', 'STAT'], ['Scientific Writing', 'RES'], ['Quantum Mechanics', 'PHYS'], ['Molecular Biology', 'BIOL'], ['Educational Psychology', 'EDUC'], ['Organic Chemistry', 'CHEM']],
  legal: [['Contract Law', 'LAW'], ['Constitutional Law', 'LAW'], ['Corporate Law', 'LAW'], ['Intellectual Property Law', 'LAW'], ['European Union Law', 'LAW'], ['Legal Writing', 'LAW']],
  consulting: [['Corporate Strategy', 'MGMT'], ['Financial Accounting', 'ACCT'], ['Microeconomics', 'ECON'], ['Operations Management', 'OPIM'], ['Business Analytics', 'MGMT']],
  default: [['Business Communication', 'BUS'], ['Organizational Behavior', 'MGMT'], ['Information Systems', 'IS'], ['Microeconomics', 'ECON'], ['Statistics', 'STAT']],
}

/** Professional bodies and communities members join. */
export const ORGANIZATIONS: ByFunction<string> = {
  engineering: ['IEEE', 'Association for Computing Machinery (ACM)', 'Women Who Code', 'Python Software Foundation', 'Cloud Native Computing Foundation'],
  data: ['Royal Statistical Society', 'American Statistical Association', 'Association for Computing Machinery (ACM)', 'Women in Data Science (WiDS)'],
  product: ['Mind the Product', 'Agile Alliance', 'Project Management Institute'],
  design: ['Interaction Design Association (IxDA)', 'AIGA', 'User Experience Professionals Association (UXPA)'],
  sales: ['Sales Management Association', 'Toastmasters International'],
  marketing: ['American Marketing Association', 'Chartered Institute of Marketing', 'Toastmasters International'],
  people: ['Society for Human Resource Management (SHRM)', 'Chartered Institute of Personnel and Development (CIPD)'],
  finance: ['CFA Society', 'ACCA', 'Institute of Management Accountants (IMA)'],
  operations: ['Association for Supply Chain Management (ASCM)', 'Project Management Institute', 'Chartered Institute of Procurement & Supply (CIPS)'],
  success: ['Customer Success Association', 'Toastmasters International'],
  health: ['American Medical Association', 'Royal College of Nursing', 'Association of Clinical Research Professionals (ACRP)', 'American Nurses Association'],
  research: ['American Physical Society', 'Royal Society of Chemistry', 'American Educational Research Association', 'Association for Computing Machinery (ACM)'],
  legal: ['American Bar Association', 'International Association of Privacy Professionals (IAPP)', 'The Law Society'],
  consulting: ['Institute of Consulting', 'Project Management Institute', 'Toastmasters International'],
  default: ['Toastmasters International', 'Chamber of Commerce'],
}

export const ORGANIZATION_POSITIONS: readonly (readonly [string, number])[] = [
  ['Member', 60], ['Committee Member', 12], ['Mentor', 8], ['Board Member', 6], ['Chapter Lead', 6], ['Conference Speaker', 5], ['Treasurer', 3],
]

type Idea = readonly [subject: string, effect: string]

const REPLICATION: Idea = ['replicating event streams across regions with bounded lag', 'keeps replicas consistent during network partitions']
const ANOMALIES: Idea = ['detecting anomalies in time-series telemetry', 'flags incidents before customers notice them']
const LINKAGE: Idea = ['privacy-preserving record linkage', 'matches records across datasets without exposing personal data']
const RANKING: Idea = ['ranking content with learned embeddings', 'improves relevance for new users with little history']
const COMPRESSION: Idea = ['compressing neural network weights for edge devices', 'runs models on-device with a fraction of the memory']
const MAINTENANCE: Idea = ['predictive maintenance of industrial equipment', 'predicts failures from vibration and temperature signals']
const VITALS: Idea = ['continuous monitoring of vital signs with wearable sensors', 'alerts clinicians to early signs of deterioration']
const OFFLINE_SYNC: Idea = ['synchronising offline edits on mobile devices', 'merges conflicting edits without user intervention']

/** Patentable ideas with what they achieve, for titles and abstracts. */
export const PATENT_IDEAS: ByFunction<Idea> = {
  engineering: [
    REPLICATION, ANOMALIES, OFFLINE_SYNC,
    ['scheduling containerised workloads on heterogeneous clusters', 'raises utilisation while meeting latency targets'],
    ['rotating encryption keys in distributed storage', 'rotates keys without downtime or re-encrypting cold data'],
    ['caching query results at the network edge', 'serves repeated queries without reaching the origin'],
  ],
  data: [
    ANOMALIES, LINKAGE, RANKING, COMPRESSION,
    ['detecting fraudulent payment transactions in real time', 'scores each transaction in under ten milliseconds'],
  ],
  research: [
    COMPRESSION, MAINTENANCE, VITALS, LINKAGE,
    ['estimating the state of charge of a battery pack', 'estimates remaining charge within two percent'],
  ],
  health: [
    VITALS,
    ['detecting arrhythmia from single-lead ECG recordings', 'flags atrial fibrillation from a wearable recording'],
    ['closed-loop insulin dosing', 'adjusts doses from continuous glucose readings'],
  ],
  operations: [
    MAINTENANCE,
    ['routing delivery vehicles under changing demand', 'replans routes as new orders arrive'],
    ['slotting inventory in automated warehouses', 'cuts picking distance as demand shifts'],
  ],
  design: [
    ['adaptive layouts for foldable displays', 'resizes the interface smoothly as the screen folds'],
    ['gesture navigation on wearable devices', 'lets people move between screens without touching them'],
  ],
  product: [RANKING, OFFLINE_SYNC],
  default: [ANOMALIES],
}

export const PATENT_FORMS = ['System and method for', 'Systems and methods for', 'Method and apparatus for', 'Techniques for'] as const

type Cause = (typeof VOLUNTEER_CAUSES)[number]

/** Volunteering by cause: organizations (`{city}` is the member's city), roles, and what the member did. */
export const VOLUNTEERING: Readonly<Record<Cause | '', { readonly organizations: readonly string[]; readonly roles: readonly string[]; readonly activities: readonly string[] }>> = {
  EDUCATION: {
    organizations: ['Code Club', 'Junior Achievement', 'Teach For All', 'Girls Who Code', '{city} Public Library'],
    roles: ['Tutor', 'Mentor', 'Volunteer Teacher', 'Coding Instructor'],
    activities: ['tutoring secondary-school students in maths', 'running weekly coding classes for teenagers', 'mentoring first-generation university students'],
  },
  ENVIRONMENT: {
    organizations: ['WWF', 'The Nature Conservancy', 'Surfrider Foundation', 'Friends of the Earth', '{city} Urban Forest Project'],
    roles: ['Volunteer', 'Clean-up Organiser', 'Tree Planting Volunteer'],
    activities: ['organising monthly beach and river clean-ups', 'planting trees across the city with local schools', 'measuring air quality with a citizen science group'],
  },
  SCIENCE_AND_TECHNOLOGY: {
    organizations: ['Wikimedia', 'Mozilla', 'Code for All', 'Open Source Initiative', '{city} Hackerspace'],
    roles: ['Open Source Contributor', 'Volunteer Developer', 'Workshop Mentor'],
    activities: ['maintaining tools used by volunteer editors', 'building websites for local charities', 'running hands-on workshops for beginners'],
  },
  HUMAN_RIGHTS: {
    organizations: ['Amnesty International', 'Human Rights Watch', 'Refugee Council'],
    roles: ['Campaign Volunteer', 'Translator', 'Volunteer Researcher'],
    activities: ['translating case documents for asylum seekers', 'coordinating letter-writing campaigns', 'researching supply chain abuses for campaign briefs'],
  },
  ANIMAL_WELFARE: {
    organizations: ['{city} Animal Shelter', 'Humane Society', 'Dogs Trust'],
    roles: ['Shelter Volunteer', 'Foster Carer', 'Dog Walker'],
    activities: ['fostering dogs waiting for adoption', 'walking and socialising shelter dogs every weekend', 'helping run adoption days'],
  },
  ARTS_AND_CULTURE: {
    organizations: ['{city} Museum of Art', '{city} Film Festival', '{city} Community Theatre'],
    roles: ['Gallery Guide', 'Festival Volunteer', 'Volunteer Stage Manager'],
    activities: ['guiding weekend tours for families', 'coordinating volunteers during festival week', 'stage managing two productions a year'],
  },
  HEALTH: {
    organizations: ['Red Cross', 'Médecins Sans Frontières', 'Cancer Research UK', 'American Heart Association'],
    roles: ['First Aid Volunteer', 'Fundraising Volunteer', 'Patient Support Volunteer'],
    activities: ['providing first aid at community events', 'fundraising through charity runs', 'supporting patients and families on the oncology ward'],
  },
  ECONOMIC_EMPOWERMENT: {
    organizations: ['Kiva', 'Lean In', 'SCORE', 'Junior Achievement'],
    roles: ['Business Mentor', 'Lending Team Volunteer', 'Mentor'],
    activities: ['mentoring small business owners on finance and pricing', 'reviewing microloan applications', 'coaching women returning to work'],
  },
  POVERTY_ALLEVIATION: {
    organizations: ['Habitat for Humanity', '{city} Food Bank', 'Oxfam', 'The Salvation Army'],
    roles: ['Volunteer', 'Build Volunteer', 'Warehouse Volunteer'],
    activities: ['building affordable homes with local families', 'sorting and packing food parcels', 'running the winter coat drive'],
  },
  CHILDREN: {
    organizations: ['Big Brothers Big Sisters', 'UNICEF', 'Save the Children', 'Scouts'],
    roles: ['Mentor', 'Scout Leader', 'Volunteer Coach'],
    activities: ['mentoring a young person for two years', 'leading a weekly scout group', 'coaching a youth football team'],
  },
  DISASTER_AND_HUMANITARIAN_RELIEF: {
    organizations: ['Red Cross', 'UNHCR', 'Direct Relief'],
    roles: ['Emergency Response Volunteer', 'Logistics Volunteer'],
    activities: ['coordinating supplies after the floods', 'staffing the emergency shelter during the winter storms'],
  },
  CIVIL_RIGHTS_AND_SOCIAL_ACTION: {
    organizations: ['Citizens Advice', 'League of Women Voters', '{city} Tenants Union'],
    roles: ['Volunteer Adviser', 'Voter Registration Volunteer', 'Organiser'],
    activities: ['advising residents on housing and benefits', 'registering first-time voters', 'organising community meetings on housing'],
  },
  SOCIAL_SERVICES: {
    organizations: ['Meals on Wheels', 'Samaritans', '{city} Community Centre'],
    roles: ['Volunteer Driver', 'Listening Volunteer', 'Volunteer'],
    activities: ['delivering meals to older neighbours', 'answering the helpline one night a week', 'running the weekly drop-in for older residents'],
  },
  '': {
    organizations: ['{city} Community Centre', '{city} Marathon', 'Parent-Teacher Association', '{city} Food Bank'],
    roles: ['Volunteer', 'Event Volunteer', 'Organiser'],
    activities: ['helping out at community events', 'coordinating volunteers on race day', 'organising fundraisers for the school'],
  },
}
