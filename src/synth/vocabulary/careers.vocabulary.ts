/**
 * Job functions: titles by seniority, skills, certifications, fields of study and the topics members
 * of the function post about. Seniority runs 0 (entry) to 5 (executive); a career climbs it.
 */
import type { Cluster } from './industries.vocabulary.ts'

export type TopicKey =
  | 'ai'
  | 'cloud'
  | 'security'
  | 'data'
  | 'engineering'
  | 'product'
  | 'design'
  | 'leadership'
  | 'sales'
  | 'marketing'
  | 'people'
  | 'finance'
  | 'health'
  | 'sustainability'
  | 'supplychain'
  | 'education'
  | 'legal'
  | 'startups'

export interface JobFunction {
  readonly key: string
  /** Share of members. */
  readonly weight: number
  /** Titles per seniority level 0..5. */
  readonly titles: readonly (readonly string[])[]
  readonly team: string
  readonly skills: readonly string[]
  readonly certifications: readonly (readonly [name: string, issuer: string])[]
  readonly fields: readonly string[]
  readonly topics: readonly TopicKey[]
  /** Industry clusters members of the function mostly work in (empty: anywhere). */
  readonly clusters: readonly Cluster[]
  /** What their work consists of, for experience descriptions. */
  readonly duties: readonly string[]
}

export const JOB_FUNCTIONS: readonly JobFunction[] = [
  {
    key: 'engineering', weight: 20, team: 'Engineering', clusters: ['tech', 'finance', 'media', 'manufacturing'],
    titles: [
      ['Software Engineering Intern', 'Junior Software Engineer', 'Graduate Software Engineer'],
      ['Software Engineer', 'Backend Engineer', 'Frontend Engineer', 'Full Stack Developer', 'Mobile Engineer'],
      ['Senior Software Engineer', 'Senior Backend Engineer', 'Senior Frontend Engineer', 'Site Reliability Engineer'],
      ['Staff Engineer', 'Engineering Manager', 'Tech Lead', 'Principal Engineer'],
      ['Director of Engineering', 'Head of Engineering', 'Head of Platform'],
      ['VP of Engineering', 'Chief Technology Officer', 'Co-founder & CTO'],
    ],
    skills: ['TypeScript', 'JavaScript', 'Node.js', 'React', 'Python', 'Go', 'Java', 'Kotlin', 'PostgreSQL', 'Kubernetes', 'Docker', 'Amazon Web Services (AWS)', 'Google Cloud Platform (GCP)', 'Microservices', 'System Design', 'REST APIs', 'GraphQL', 'CI/CD', 'Terraform', 'Distributed Systems', 'Software Architecture', 'Rust'],
    certifications: [['AWS Certified Solutions Architect – Associate', 'Amazon Web Services (AWS)'], ['Certified Kubernetes Administrator (CKA)', 'The Linux Foundation'], ['Google Cloud Professional Cloud Architect', 'Google Cloud'], ['HashiCorp Certified: Terraform Associate', 'HashiCorp'], ['Microsoft Certified: Azure Developer Associate', 'Microsoft']],
    fields: ['Computer Science', 'Software Engineering', 'Electrical and Electronics Engineering', 'Mathematics', 'Computer Engineering'],
    topics: ['engineering', 'cloud', 'ai', 'security', 'leadership'],
    duties: ['Built and operated the services behind the core product', 'Led the migration of a monolith to event-driven services', 'Cut p99 latency of the public API by more than half', 'Owned the CI/CD pipeline and developer tooling', 'Mentored junior engineers and ran the hiring loop for the team', 'Designed the multi-region deployment and on-call practices'],
  },
  {
    key: 'data', weight: 8, team: 'Data', clusters: ['tech', 'finance', 'health', 'retail'],
    titles: [
      ['Data Analyst Intern', 'Junior Data Analyst'],
      ['Data Analyst', 'Data Scientist', 'Data Engineer', 'Analytics Engineer', 'Machine Learning Engineer'],
      ['Senior Data Scientist', 'Senior Data Engineer', 'Senior Machine Learning Engineer'],
      ['Lead Data Scientist', 'Data Science Manager', 'Staff Machine Learning Engineer'],
      ['Director of Data Science', 'Head of Data', 'Head of AI'],
      ['VP of Data', 'Chief Data Officer'],
    ],
    skills: ['Python', 'SQL', 'Machine Learning', 'Deep Learning', 'PyTorch', 'TensorFlow', 'dbt', 'Apache Spark', 'Airflow', 'Statistics', 'Data Visualization', 'Tableau', 'Natural Language Processing (NLP)', 'A/B Testing', 'Snowflake', 'Large Language Models (LLM)', 'Data Modeling'],
    certifications: [['TensorFlow Developer Certificate', 'Google'], ['Databricks Certified Data Engineer Associate', 'Databricks'], ['SnowPro Core Certification', 'Snowflake'], ['Deep Learning Specialization', 'DeepLearning.AI']],
    fields: ['Statistics', 'Computer Science', 'Mathematics', 'Physics', 'Economics', 'Data Science'],
    topics: ['data', 'ai', 'engineering'],
    duties: ['Built the forecasting models behind demand planning', 'Designed the company-wide metrics layer in dbt', 'Shipped the recommendation model that lifted conversion', 'Ran the experimentation platform and A/B testing practice', 'Built LLM-based classification for support tickets'],
  },
  {
    key: 'product', weight: 7, team: 'Product', clusters: ['tech', 'finance', 'health'],
    titles: [
      ['Associate Product Manager', 'Product Analyst'],
      ['Product Manager', 'Product Owner', 'Technical Product Manager'],
      ['Senior Product Manager'],
      ['Group Product Manager', 'Lead Product Manager', 'Principal Product Manager'],
      ['Director of Product', 'Head of Product'],
      ['VP of Product', 'Chief Product Officer'],
    ],
    skills: ['Product Management', 'Product Strategy', 'Roadmapping', 'User Research', 'Agile Methodologies', 'Scrum', 'Jira', 'Stakeholder Management', 'SQL', 'Product Discovery', 'Go-to-Market Strategy', 'A/B Testing', 'OKRs'],
    certifications: [['Certified Scrum Product Owner (CSPO)', 'Scrum Alliance'], ['Product Management Certificate', 'Product School'], ['Professional Scrum Product Owner I', 'Scrum.org']],
    fields: ['Business Administration and Management', 'Computer Science', 'Economics', 'Industrial Engineering'],
    topics: ['product', 'ai', 'leadership', 'startups'],
    duties: ['Owned the roadmap for onboarding and activation', 'Launched the self-serve plan from discovery to general availability', 'Grew weekly active teams by 40% in a year', 'Led discovery with 60+ customer interviews per quarter', 'Built the pricing and packaging for the enterprise tier'],
  },
  {
    key: 'design', weight: 4, team: 'Design', clusters: ['tech', 'media', 'marketing'],
    titles: [
      ['Design Intern', 'Junior Product Designer'],
      ['Product Designer', 'UX Designer', 'UX Researcher', 'Visual Designer'],
      ['Senior Product Designer', 'Senior UX Researcher'],
      ['Lead Designer', 'Design Manager', 'Principal Designer'],
      ['Head of Design', 'Director of Design'],
      ['VP of Design', 'Chief Design Officer'],
    ],
    skills: ['Figma', 'User Experience (UX)', 'User Interface Design', 'Design Systems', 'Prototyping', 'User Research', 'Interaction Design', 'Accessibility', 'Usability Testing', 'Visual Design', 'Design Thinking'],
    certifications: [['Google UX Design Certificate', 'Google'], ['Certified Usability Analyst (CUA)', 'Human Factors International'], ['UX Certification', 'Nielsen Norman Group']],
    fields: ['Graphic Design', 'Human-Computer Interaction', 'Interaction Design', 'Psychology', 'Fine Arts'],
    topics: ['design', 'product'],
    duties: ['Built and maintained the design system used by every squad', 'Redesigned checkout, lifting completion by 12%', 'Ran the research programme for the mobile app', 'Led the accessibility overhaul to WCAG 2.2 AA'],
  },
  {
    key: 'sales', weight: 10, team: 'Sales', clusters: [],
    titles: [
      ['Sales Development Representative', 'Business Development Representative'],
      ['Account Executive', 'Account Manager', 'Sales Engineer'],
      ['Senior Account Executive', 'Enterprise Account Executive', 'Key Account Manager'],
      ['Sales Manager', 'Regional Sales Manager', 'Team Lead, Sales'],
      ['Director of Sales', 'Head of Sales', 'Head of Partnerships'],
      ['VP of Sales', 'Chief Revenue Officer', 'Chief Commercial Officer'],
    ],
    skills: ['B2B Sales', 'Salesforce', 'Negotiation', 'Account Management', 'Solution Selling', 'Pipeline Management', 'Enterprise Software', 'Cold Calling', 'Business Development', 'Sales Operations', 'HubSpot', 'MEDDIC'],
    certifications: [['Salesforce Certified Administrator', 'Salesforce'], ['HubSpot Sales Software Certification', 'HubSpot Academy'], ['Certified Sales Professional (CSP)', 'National Association of Sales Professionals']],
    fields: ['Business Administration and Management', 'Marketing', 'Communication', 'Economics', 'Psychology'],
    topics: ['sales', 'leadership', 'startups', 'ai'],
    duties: ['Closed new logos across the mid-market segment, 130% of quota', 'Built the partner channel in the region from zero', 'Managed a book of 40 enterprise accounts', 'Hired and ramped a team of eight account executives'],
  },
  {
    key: 'marketing', weight: 8, team: 'Marketing', clusters: [],
    titles: [
      ['Marketing Intern', 'Marketing Coordinator', 'Social Media Coordinator'],
      ['Marketing Specialist', 'Content Marketing Manager', 'Growth Marketer', 'SEO Specialist', 'Product Marketing Manager'],
      ['Senior Product Marketing Manager', 'Senior Marketing Manager', 'Brand Manager'],
      ['Marketing Manager', 'Head of Content', 'Demand Generation Lead'],
      ['Director of Marketing', 'Head of Marketing', 'Head of Brand'],
      ['VP of Marketing', 'Chief Marketing Officer'],
    ],
    skills: ['Digital Marketing', 'Content Strategy', 'SEO', 'Google Analytics', 'Brand Management', 'Marketing Automation', 'Copywriting', 'Social Media Marketing', 'Demand Generation', 'Product Marketing', 'Email Marketing', 'Paid Media'],
    certifications: [['Google Analytics Certification', 'Google'], ['Inbound Marketing Certification', 'HubSpot Academy'], ['Meta Certified Digital Marketing Associate', 'Meta']],
    fields: ['Marketing', 'Communication', 'Journalism', 'Business Administration and Management', 'Psychology'],
    topics: ['marketing', 'ai', 'startups', 'leadership'],
    duties: ['Grew organic traffic threefold with a rebuilt content engine', 'Launched the rebrand across web, product and events', 'Ran demand generation for the enterprise segment', 'Led positioning and launch for three major releases'],
  },
  {
    key: 'people', weight: 6, team: 'People', clusters: ['people'],
    titles: [
      ['HR Intern', 'Recruiting Coordinator', 'HR Assistant'],
      ['Talent Acquisition Specialist', 'Technical Recruiter', 'HR Generalist', 'People Operations Specialist'],
      ['Senior Technical Recruiter', 'HR Business Partner', 'Senior Talent Partner'],
      ['Talent Acquisition Lead', 'People Operations Manager', 'Learning & Development Manager'],
      ['Director of People', 'Head of Talent', 'Head of People'],
      ['VP of People', 'Chief People Officer', 'Chief Human Resources Officer'],
    ],
    skills: ['Recruiting', 'Technical Recruiting', 'Talent Acquisition', 'Employer Branding', 'Onboarding', 'Employee Relations', 'HRIS', 'Compensation and Benefits', 'Diversity & Inclusion', 'Performance Management', 'Workday', 'Greenhouse'],
    certifications: [['SHRM Certified Professional (SHRM-CP)', 'SHRM'], ['Professional in Human Resources (PHR)', 'HRCI'], ['CIPD Level 5 Associate Diploma', 'CIPD']],
    fields: ['Human Resources Management', 'Psychology', 'Business Administration and Management', 'Sociology'],
    topics: ['people', 'leadership', 'startups'],
    duties: ['Hired 120+ engineers and designers in 18 months', 'Built the onboarding programme and career ladders', 'Introduced structured interviewing across the company', 'Ran compensation reviews and the benefits renewal'],
  },
  {
    key: 'finance', weight: 7, team: 'Finance', clusters: ['finance', 'consulting'],
    titles: [
      ['Finance Intern', 'Junior Accountant', 'Financial Analyst Intern'],
      ['Financial Analyst', 'Accountant', 'Risk Analyst', 'Investment Analyst'],
      ['Senior Financial Analyst', 'Senior Accountant', 'Credit Risk Manager'],
      ['Finance Manager', 'FP&A Manager', 'Controller'],
      ['Director of Finance', 'Head of FP&A', 'Head of Risk'],
      ['VP of Finance', 'Chief Financial Officer'],
    ],
    skills: ['Financial Modeling', 'Financial Analysis', 'Excel', 'Budgeting', 'Forecasting', 'Accounting', 'IFRS', 'US GAAP', 'Risk Management', 'Valuation', 'Corporate Finance', 'SAP', 'Power BI'],
    certifications: [['Chartered Financial Analyst (CFA) Level II', 'CFA Institute'], ['Certified Public Accountant (CPA)', 'AICPA'], ['Financial Risk Manager (FRM)', 'GARP'], ['ACCA Qualification', 'ACCA']],
    fields: ['Finance', 'Accounting', 'Economics', 'Business Administration and Management', 'Mathematics'],
    topics: ['finance', 'leadership', 'ai'],
    duties: ['Built the three-statement model used for the Series C', 'Cut the monthly close from ten days to four', 'Owned FP&A for a business unit with 200M in revenue', 'Led the risk framework for the lending portfolio'],
  },
  {
    key: 'operations', weight: 7, team: 'Operations', clusters: ['logistics', 'manufacturing', 'retail', 'energy'],
    titles: [
      ['Operations Intern', 'Operations Coordinator', 'Logistics Coordinator'],
      ['Operations Analyst', 'Supply Chain Analyst', 'Project Manager', 'Procurement Specialist'],
      ['Senior Project Manager', 'Senior Supply Chain Manager', 'Program Manager'],
      ['Operations Manager', 'Senior Program Manager', 'Plant Manager'],
      ['Director of Operations', 'Head of Supply Chain'],
      ['VP of Operations', 'Chief Operating Officer'],
    ],
    skills: ['Supply Chain Management', 'Operations Management', 'Project Management', 'Lean Six Sigma', 'Logistics', 'Procurement', 'Process Improvement', 'Inventory Management', 'ERP', 'Vendor Management', 'Continuous Improvement'],
    certifications: [['Project Management Professional (PMP)', 'Project Management Institute'], ['Lean Six Sigma Green Belt', 'ASQ'], ['APICS Certified Supply Chain Professional (CSCP)', 'ASCM']],
    fields: ['Industrial Engineering', 'Supply Chain Management', 'Business Administration and Management', 'Mechanical Engineering'],
    topics: ['supplychain', 'sustainability', 'leadership', 'ai'],
    duties: ['Ran three fulfilment centres with 400 staff', 'Reduced stock-outs by 30% with a new replenishment process', 'Led the ERP rollout across four countries', 'Renegotiated carrier contracts, saving 2.1M a year'],
  },
  {
    key: 'success', weight: 5, team: 'Customer Success', clusters: ['tech'],
    titles: [
      ['Customer Support Specialist', 'Customer Success Associate'],
      ['Customer Success Manager', 'Implementation Consultant', 'Solutions Consultant'],
      ['Senior Customer Success Manager', 'Senior Solutions Architect'],
      ['Customer Success Team Lead', 'Manager, Customer Success'],
      ['Director of Customer Success', 'Head of Customer Experience'],
      ['VP of Customer Success', 'Chief Customer Officer'],
    ],
    skills: ['Customer Success', 'Customer Retention', 'Onboarding', 'SaaS', 'Zendesk', 'Gainsight', 'Account Management', 'Customer Experience', 'Solution Architecture', 'Technical Support'],
    certifications: [['Certified Customer Success Manager (CCSM)', 'SuccessCOACHING'], ['ITIL 4 Foundation', 'AXELOS']],
    fields: ['Business Administration and Management', 'Communication', 'Information Technology', 'Psychology'],
    topics: ['sales', 'ai', 'leadership'],
    duties: ['Kept gross retention above 95% for the enterprise book', 'Built the onboarding playbook that halved time to value', 'Ran the customer advisory board', 'Launched AI-assisted support, deflecting 30% of tickets'],
  },
  {
    key: 'health', weight: 6, team: 'Clinical', clusters: ['health'],
    titles: [
      ['Clinical Research Assistant', 'Registered Nurse'],
      ['Clinical Research Associate', 'Physician Assistant', 'Pharmacist', 'Biomedical Engineer'],
      ['Senior Clinical Research Associate', 'Nurse Practitioner', 'Physician'],
      ['Clinical Operations Manager', 'Nurse Manager', 'Medical Science Liaison'],
      ['Medical Director', 'Director of Clinical Operations'],
      ['Chief Medical Officer', 'VP of Clinical Development'],
    ],
    skills: ['Clinical Research', 'Good Clinical Practice (GCP)', 'Patient Care', 'Clinical Trials', 'Regulatory Affairs', 'Medical Devices', 'Healthcare Management', 'Electronic Medical Record (EMR)', 'Pharmacovigilance', 'Biostatistics'],
    certifications: [['Good Clinical Practice (GCP)', 'NIDA Clinical Trials Network'], ['Basic Life Support (BLS)', 'American Heart Association'], ['Certified Clinical Research Professional (CCRP)', 'SOCRA']],
    fields: ['Nursing', 'Medicine', 'Pharmacy', 'Biomedical Engineering', 'Public Health', 'Biology'],
    topics: ['health', 'ai', 'leadership'],
    duties: ['Monitored phase II and III oncology trials across 12 sites', 'Led the rollout of remote patient monitoring', 'Managed a ward of 30 beds and a team of 25 nurses', 'Owned regulatory submissions for two Class II devices'],
  },
  {
    key: 'research', weight: 4, team: 'Research', clusters: ['education', 'health', 'nonprofit'],
    titles: [
      ['Research Assistant', 'Teaching Assistant', 'PhD Candidate'],
      ['Postdoctoral Researcher', 'Lecturer', 'Research Scientist', 'Instructional Designer'],
      ['Senior Lecturer', 'Senior Research Scientist', 'Assistant Professor'],
      ['Associate Professor', 'Principal Investigator', 'Program Director'],
      ['Professor', 'Head of Department', 'Dean of Engineering'],
      ['Provost', 'Vice Chancellor'],
    ],
    skills: ['Research', 'Teaching', 'Academic Writing', 'Grant Writing', 'Data Analysis', 'Curriculum Development', 'Public Speaking', 'R', 'Python', 'Qualitative Research', 'Mentoring'],
    certifications: [['Fellowship of the Higher Education Academy (FHEA)', 'Advance HE'], ['Research Ethics Certification', 'CITI Program']],
    fields: ['Physics', 'Biology', 'Chemistry', 'Computer Science', 'Education', 'Economics', 'Sociology'],
    topics: ['education', 'ai', 'sustainability', 'health'],
    duties: ['Published 14 peer-reviewed papers and supervised five PhD students', 'Designed and taught the graduate course on machine learning', 'Secured a 1.8M research grant', 'Led a cross-university study on learning outcomes'],
  },
  {
    key: 'legal', weight: 3, team: 'Legal', clusters: ['legal', 'finance', 'government'],
    titles: [
      ['Legal Intern', 'Paralegal', 'Trainee Solicitor'],
      ['Associate', 'Legal Counsel', 'Compliance Analyst'],
      ['Senior Associate', 'Senior Legal Counsel', 'Compliance Manager'],
      ['Counsel', 'Head of Compliance', 'Legal Director'],
      ['Partner', 'General Counsel', 'Head of Legal'],
      ['Managing Partner', 'Chief Legal Officer'],
    ],
    skills: ['Contract Negotiation', 'Corporate Law', 'Legal Writing', 'GDPR', 'Regulatory Compliance', 'Intellectual Property', 'Litigation', 'Mergers & Acquisitions', 'Employment Law', 'Data Privacy'],
    certifications: [['Certified Information Privacy Professional/Europe (CIPP/E)', 'IAPP'], ['Certified Compliance & Ethics Professional (CCEP)', 'SCCE']],
    fields: ['Law', 'Political Science', 'International Relations', 'Economics'],
    topics: ['legal', 'ai', 'leadership'],
    duties: ['Advised on venture financings and cross-border M&A', 'Built the privacy programme ahead of a major audit', 'Negotiated enterprise contracts with Fortune 500 customers', 'Led the compliance function through a banking licence application'],
  },
  {
    key: 'consulting', weight: 5, team: 'Strategy', clusters: ['consulting', 'finance'],
    titles: [
      ['Business Analyst', 'Junior Consultant'],
      ['Consultant', 'Strategy Consultant', 'Management Consultant'],
      ['Senior Consultant', 'Senior Strategy Consultant'],
      ['Manager', 'Engagement Manager', 'Principal Consultant'],
      ['Associate Partner', 'Director'],
      ['Partner', 'Managing Director', 'Founder & CEO'],
    ],
    skills: ['Strategy', 'Management Consulting', 'Business Strategy', 'Stakeholder Management', 'Change Management', 'Financial Modeling', 'Market Research', 'PowerPoint', 'Digital Transformation', 'Operating Models', 'Due Diligence'],
    certifications: [['Project Management Professional (PMP)', 'Project Management Institute'], ['Prosci Certified Change Practitioner', 'Prosci'], ['PRINCE2 Foundation', 'AXELOS']],
    fields: ['Business Administration and Management', 'Economics', 'Engineering', 'Finance', 'Public Policy'],
    topics: ['leadership', 'ai', 'startups', 'sustainability'],
    duties: ['Led digital transformation programmes for retail and banking clients', 'Ran commercial due diligence on 20+ deals', 'Designed the target operating model for a 5,000-person business', 'Built the cost programme that saved a client 8% of opex'],
  },
]

const ENGINEERING_FIELD = /Engineering|Information Technology/
const SCIENCE_FIELDS = new Set(['Computer Science', 'Mathematics', 'Statistics', 'Physics', 'Biology', 'Chemistry', 'Data Science', 'Human-Computer Interaction', 'Public Health'])
const BUSINESS_FIELDS = new Set(['Business Administration and Management', 'Finance', 'Accounting', 'Marketing', 'Supply Chain Management', 'Human Resources Management', 'Strategy', 'Entrepreneurship'])

/** The degree title that goes with a field of study ("Bachelor of Science in Nursing - BSN"), by country habits. */
export function degreeFor(pick: <T>(items: readonly T[]) => T, level: 'bachelor' | 'master' | 'doctor', field: string, country: string): string {
  if (level === 'doctor') return 'Doctor of Philosophy - PhD'
  const bachelor = level === 'bachelor'
  if (pick([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]) === 0) return bachelor ? "Bachelor's degree" : "Master's degree"
  switch (field) {
    case 'Nursing':
      return bachelor ? 'Bachelor of Science in Nursing - BSN' : 'Master of Science in Nursing - MSN'
    case 'Medicine':
      return bachelor ? (country === 'US' || country === 'CA' ? 'Doctor of Medicine - MD' : 'Bachelor of Medicine, Bachelor of Surgery - MBBS') : 'Master of Science - MS'
    case 'Pharmacy':
      return bachelor ? (country === 'US' ? 'Doctor of Pharmacy - PharmD' : 'Bachelor of Pharmacy - BPharm') : 'Master of Science - MS'
    case 'Law':
      return bachelor ? (country === 'US' ? 'Juris Doctor - JD' : 'Bachelor of Laws - LLB') : 'Master of Laws - LLM'
    case 'Fine Arts':
      return bachelor ? 'Bachelor of Fine Arts - BFA' : 'Master of Fine Arts - MFA'
    case 'Public Policy':
      return bachelor ? 'Bachelor of Arts - BA' : 'Master of Public Policy - MPP'
    case 'Education':
      return bachelor ? 'Bachelor of Arts - BA' : 'Master of Education - MEd'
    case 'Public Health':
      return bachelor ? 'Bachelor of Science - BS' : 'Master of Public Health - MPH'
    default:
      break
  }
  if (ENGINEERING_FIELD.test(field)) {
    if (bachelor) return country === 'IN' ? 'Bachelor of Technology - BTech' : pick(['Bachelor of Engineering - BE', 'Bachelor of Science - BS'])
    return pick(['Master of Engineering - MEng', 'Master of Science - MS'])
  }
  if (SCIENCE_FIELDS.has(field)) return bachelor ? 'Bachelor of Science - BS' : 'Master of Science - MS'
  if (BUSINESS_FIELDS.has(field)) {
    if (bachelor) return country === 'IN' ? 'Bachelor of Commerce - BCom' : pick(['Bachelor of Business Administration - BBA', 'Bachelor of Science - BS'])
    return 'Master of Science - MS'
  }
  return bachelor ? 'Bachelor of Arts - BA' : 'Master of Arts - MA'
}

export const GRADES = ['', '', '', '3.8', '3.6 GPA', 'First Class Honours', 'Upper Second-Class Honours (2:1)', 'Magna Cum Laude', 'Cum Laude', 'Distinction', '9.1 CGPA', 'With honours'] as const

export const ACTIVITIES = [
  'Robotics Club, Debate Society',
  'Student Council, Entrepreneurship Society',
  'Women in Tech, Hackathon organiser',
  'Varsity rowing, Peer tutoring',
  'Model United Nations, Consulting Club',
  'Data Science Society, Chess Club',
  'Student newspaper (editor), Film Society',
  'Exchange semester abroad, Volunteering at the local food bank',
] as const

export const SIDE_ROLES: readonly (readonly [title: string, kind: string])[] = [
  ['Advisor', 'advisory'],
  ['Board Member', 'board'],
  ['Mentor', 'mentoring'],
  ['Angel Investor', 'investing'],
  ['Guest Lecturer', 'teaching'],
  ['Founder', 'side project'],
]

export const VOLUNTEER_CAUSES = [
  'EDUCATION',
  'ENVIRONMENT',
  'SCIENCE_AND_TECHNOLOGY',
  'HUMAN_RIGHTS',
  'ANIMAL_WELFARE',
  'ARTS_AND_CULTURE',
  'HEALTH',
  'ECONOMIC_EMPOWERMENT',
  'POVERTY_ALLEVIATION',
  'CHILDREN',
  'DISASTER_AND_HUMANITARIAN_RELIEF',
  'CIVIL_RIGHTS_AND_SOCIAL_ACTION',
  'SOCIAL_SERVICES',
] as const

export const GENERAL_SKILLS = ['Leadership', 'Public Speaking', 'Team Management', 'Communication', 'Problem Solving', 'Project Management', 'Mentoring', 'Strategic Planning', 'Cross-functional Team Leadership', 'Microsoft Office'] as const

export const TEST_SCORES: readonly (readonly [name: string, lo: number, hi: number])[] = [
  ['GRE', 310, 336],
  ['GMAT', 640, 780],
  ['TOEFL iBT', 95, 119],
  ['IELTS Academic', 7, 9],
  ['SAT', 1350, 1580],
]

export const RECOMMENDATION_RELATIONS = [
  (author: string, subject: string) => `${author} managed ${subject} directly`,
  (author: string, subject: string) => `${author} worked with ${subject} on the same team`,
  (author: string, subject: string) => `${author} was senior to ${subject} but didn't manage ${subject} directly`,
  (author: string, subject: string) => `${author} reported directly to ${subject}`,
  (author: string, subject: string) => `${author} worked with ${subject} but on different teams`,
  (author: string, subject: string) => `${author} was ${subject}'s client`,
  (author: string, subject: string) => `${author} mentored ${subject}`,
] as const

export const RECOMMENDATION_TEXTS = [
  (s: string) => `${s} is one of the most thoughtful people I have worked with. ${s} asks the question nobody else thought of, and then does the work to answer it. Any team would be lucky to have ${s}.`,
  (s: string) => `I had the pleasure of working with ${s} for almost three years. ${s} combines sharp judgement with real kindness, and turned a struggling project into one of our biggest wins.`,
  (s: string) => `${s} consistently delivered beyond what was asked, and made everyone around them better in the process. I would hire ${s} again without a second thought.`,
  (s: string) => `Few people can move between strategy and execution as easily as ${s}. Calm under pressure, clear in communication, and always focused on the customer.`,
  (s: string) => `${s} was a fantastic mentor when I joined the team. Patient, generous with time, and honest in feedback. I still use what I learned from ${s} every week.`,
  (s: string) => `Working with ${s} was a masterclass in ownership. When something broke at 2 a.m., ${s} was already on it, and the post-mortem the next day was blameless and genuinely useful.`,
] as const

export const PRONOUNS = { female: 'She/Her', male: 'He/Him', neutral: 'They/Them' } as const
