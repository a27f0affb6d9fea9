/**
 * Industries (current label plus a legacy label from the older taxonomy, which is a different
 * classification, not a translation), grouped into clusters that drive names, specialities,
 * hashtags and the topics people there post about.
 */

export type Cluster =
  | 'tech'
  | 'finance'
  | 'health'
  | 'marketing'
  | 'consulting'
  | 'people'
  | 'logistics'
  | 'energy'
  | 'retail'
  | 'legal'
  | 'realestate'
  | 'government'
  | 'nonprofit'
  | 'education'
  | 'manufacturing'
  | 'media'

export interface Industry {
  readonly label: string
  readonly legacy: string
  readonly cluster: Cluster
  /** Share of company pages. */
  readonly weight: number
  /** The platform's numeric id of the industry (`urn:li:fsd_industry:<id>`), one per label. */
  readonly id: number
}

const i = (label: string, legacy: string, cluster: Cluster, weight: number, id: number): Industry => ({ label, legacy, cluster, weight, id })

export const INDUSTRIES: readonly Industry[] = [
  i('Software Development', 'Computer Software', 'tech', 16, 4),
  i('IT Services and IT Consulting', 'Information Technology and Services', 'tech', 10, 96),
  i('Technology, Information and Internet', 'Internet', 'tech', 6, 6),
  i('Computer and Network Security', 'Computer & Network Security', 'tech', 3, 118),
  i('Financial Services', 'Banking', 'finance', 6, 43),
  i('Venture Capital and Private Equity Principals', 'Venture Capital & Private Equity', 'finance', 2, 106),
  i('Insurance', 'Financial Services', 'finance', 2, 42),
  i('Accounting', 'Financial Services', 'finance', 2, 47),
  i('Hospitals and Health Care', 'Hospital & Health Care', 'health', 5, 14),
  i('Pharmaceutical Manufacturing', 'Pharmaceuticals', 'health', 2, 15),
  i('Biotechnology Research', 'Biotechnology', 'health', 2, 12),
  i('Medical Equipment Manufacturing', 'Medical Devices', 'health', 2, 17),
  i('Advertising Services', 'Marketing and Advertising', 'marketing', 4, 80),
  i('Business Consulting and Services', 'Management Consulting', 'consulting', 5, 11),
  i('Staffing and Recruiting', 'Staffing & Recruiting', 'people', 3, 104),
  i('Human Resources Services', 'Human Resources', 'people', 1, 137),
  i('Transportation, Logistics, Supply Chain and Storage', 'Logistics and Supply Chain', 'logistics', 3, 116),
  i('Renewable Energy Power Generation', 'Renewables & Environment', 'energy', 2, 3240),
  i('Oil and Gas', 'Oil & Energy', 'energy', 1, 57),
  i('Retail Apparel and Fashion', 'Apparel & Fashion', 'retail', 2, 19),
  i('Food and Beverage Manufacturing', 'Food Production', 'retail', 2, 23),
  i('Retail', 'Consumer Goods', 'retail', 2, 27),
  i('Legal Services', 'Law Practice', 'legal', 2, 10),
  i('Real Estate', 'Commercial Real Estate', 'realestate', 2, 44),
  i('Public Policy Offices', 'Government Administration', 'government', 1, 79),
  i('Non-profit Organizations', 'Nonprofit Organization Management', 'nonprofit', 2, 100),
  i('E-Learning Providers', 'E-Learning', 'education', 2, 132),
  i('Automation Machinery Manufacturing', 'Mechanical or Industrial Engineering', 'manufacturing', 2, 135),
  i('Motor Vehicle Manufacturing', 'Automotive', 'manufacturing', 1, 53),
  i('Telecommunications', 'Wireless', 'tech', 1, 8),
  i('Media Production', 'Online Media', 'media', 2, 126),
  i('Design Services', 'Design', 'media', 1, 99),
]

export const SCHOOL_INDUSTRY: Industry = i('Higher Education', 'Education Management', 'education', 0, 68)

/** Words that make up a company name, per cluster: `[prefix, suffix]` lists. */
export const NAME_PARTS: Readonly<Record<Cluster, { readonly prefixes: readonly string[]; readonly suffixes: readonly string[] }>> = {
  tech: {
    prefixes: ['Lumen', 'Cobalt', 'Nimbus', 'Brightline', 'Helix', 'Quanta', 'Vector', 'Stratus', 'Kestrel', 'Parallax', 'Orbital', 'Fathom', 'Meridian', 'Polaris', 'Tessera', 'Arclight', 'Sable', 'Northwind', 'Bluefin', 'Cinder', 'Lattice', 'Ember', 'Tidal', 'Zenith', 'Prism', 'Relay', 'Harbor', 'Onyx', 'Nova', 'Ion'],
    suffixes: ['Labs', 'Systems', 'Analytics', 'Software', 'Technologies', 'Cloud', 'AI', 'Data', 'Security', 'Networks', 'Digital', 'Works', 'IO', 'Platforms'],
  },
  finance: {
    prefixes: ['Harbor', 'Granite', 'Summit', 'Keystone', 'Ironbridge', 'Silverleaf', 'Beacon', 'Crescent', 'Redwood', 'Sterling', 'Fairway', 'Oakmont', 'Westgate', 'Cardinal', 'Anchor'],
    suffixes: ['Capital', 'Partners', 'Bank', 'Financial', 'Asset Management', 'Ventures', 'Insurance', 'Payments', 'Wealth', 'Advisors'],
  },
  health: {
    prefixes: ['Vital', 'Cura', 'Evergreen', 'Bright', 'Clarity', 'Novum', 'Aster', 'Helio', 'Veritas', 'Genova', 'Pulse', 'Medica', 'Sana', 'Lifespring'],
    suffixes: ['Health', 'Therapeutics', 'Biosciences', 'Medical', 'Diagnostics', 'Pharma', 'Care', 'Clinics', 'Genomics', 'Health System'],
  },
  marketing: {
    prefixes: ['Loud', 'Northstar', 'Bright', 'Spark', 'Canvas', 'Signal', 'Mosaic', 'Amplify', 'Bold', 'Echo', 'Kinship'],
    suffixes: ['Agency', 'Media', 'Creative', 'Collective', 'Studio', 'Marketing', 'Communications', 'Group'],
  },
  consulting: {
    prefixes: ['Clearpath', 'Bridgewater', 'Insight', 'Keystone', 'Pinnacle', 'Catalyst', 'Alder', 'Compass', 'Waypoint', 'Foresight'],
    suffixes: ['Consulting', 'Advisory', 'Partners', 'Strategy Group', 'Associates', 'Management Consulting'],
  },
  people: {
    prefixes: ['Talent', 'Peoplefirst', 'Hire', 'Crew', 'Bridge', 'Thrive', 'Workwell', 'Staffline', 'Elevate'],
    suffixes: ['Recruiting', 'Talent', 'Staffing', 'Search', 'People Solutions', 'HR'],
  },
  logistics: {
    prefixes: ['Swift', 'Coastline', 'Atlas', 'Freightway', 'Northbound', 'Cargo', 'Meridian', 'Transit', 'Routewise', 'Portside'],
    suffixes: ['Logistics', 'Freight', 'Supply Chain', 'Shipping', 'Transport', 'Fulfillment'],
  },
  energy: {
    prefixes: ['Solara', 'Windward', 'Greenfield', 'Voltaic', 'Terra', 'Bright Sky', 'Hydra', 'Sunstone', 'Evolve', 'Clearwater'],
    suffixes: ['Energy', 'Power', 'Renewables', 'Solar', 'Grid', 'Resources'],
  },
  retail: {
    prefixes: ['Maple', 'Juniper', 'Willow', 'Urban', 'Goodleaf', 'Harvest', 'Fable', 'Common', 'Wildflower', 'Oat & Ember', 'Tallow'],
    suffixes: ['Goods', 'Foods', 'Co.', 'Market', 'Apparel', 'Brands', 'Kitchen', 'Outfitters'],
  },
  legal: { prefixes: [], suffixes: ['LLP', 'Law', 'Legal', '& Partners'] },
  realestate: {
    prefixes: ['Cornerstone', 'Parkview', 'Highgate', 'Landmark', 'Riverside', 'Crown', 'Brick & Beam', 'Skyline'],
    suffixes: ['Properties', 'Realty', 'Real Estate', 'Development', 'Living'],
  },
  government: { prefixes: [], suffixes: ['Department of Transportation', 'Digital Service', 'Office of Innovation', 'Health Authority', 'Revenue Agency'] },
  nonprofit: {
    prefixes: ['Open', 'Bright Futures', 'Common Ground', 'Hope', 'Code', 'Green', 'Kindred', 'Pathways', 'Uplift'],
    suffixes: ['Foundation', 'Initiative', 'Alliance', 'Trust', 'Collective', 'Fund'],
  },
  education: {
    prefixes: ['Learnwell', 'Skillbridge', 'Brightmind', 'Campus', 'Mentorly', 'Bootcamp', 'Scholar'],
    suffixes: ['Academy', 'Learning', 'Education', 'Institute', 'Online'],
  },
  manufacturing: {
    prefixes: ['Precision', 'Ironworks', 'Titan', 'Forge', 'Apex', 'Vanguard', 'Dynamo', 'Steelhead', 'Axis'],
    suffixes: ['Manufacturing', 'Industries', 'Robotics', 'Automation', 'Motors', 'Engineering'],
  },
  media: {
    prefixes: ['Frame', 'Lightbox', 'Storyline', 'Reel', 'Pixel', 'Inkwell', 'Studio', 'Wavelength'],
    suffixes: ['Studios', 'Media', 'Productions', 'Design', 'Pictures', 'Publishing'],
  },
}

export const SPECIALITIES: Readonly<Record<Cluster, readonly string[]>> = {
  tech: ['SaaS', 'Cloud Computing', 'Machine Learning', 'Data Platforms', 'API Integration', 'DevOps', 'Cybersecurity', 'Mobile Development', 'Developer Tools', 'Enterprise Software', 'Observability', 'Identity Management', 'Generative AI', 'Data Engineering'],
  finance: ['Payments', 'Wealth Management', 'Private Equity', 'Risk Management', 'Corporate Banking', 'Insurance', 'Fintech', 'Asset Management', 'Lending', 'Compliance', 'Audit', 'Tax Advisory'],
  health: ['Digital Health', 'Clinical Trials', 'Oncology', 'Medical Devices', 'Telemedicine', 'Diagnostics', 'Patient Care', 'Genomics', 'Drug Discovery', 'Population Health'],
  marketing: ['Brand Strategy', 'Content Marketing', 'Performance Marketing', 'SEO', 'Social Media', 'Creative Production', 'Influencer Marketing', 'Market Research'],
  consulting: ['Strategy', 'Digital Transformation', 'Operations Excellence', 'Change Management', 'M&A Advisory', 'Organizational Design', 'Cost Optimization'],
  people: ['Executive Search', 'Technical Recruiting', 'RPO', 'Employer Branding', 'HR Consulting', 'Contract Staffing', 'Talent Assessment'],
  logistics: ['Freight Forwarding', 'Warehousing', 'Last-Mile Delivery', 'Customs Brokerage', 'Supply Chain Visibility', 'Cold Chain', 'Fleet Management'],
  energy: ['Solar PV', 'Wind Energy', 'Energy Storage', 'Grid Modernization', 'EV Charging', 'Carbon Accounting', 'Energy Efficiency'],
  retail: ['E-commerce', 'Direct-to-Consumer', 'Sustainable Fashion', 'Private Label', 'Omnichannel Retail', 'Plant-Based Foods', 'Merchandising'],
  legal: ['Corporate Law', 'Intellectual Property', 'Employment Law', 'Data Protection', 'Litigation', 'Mergers and Acquisitions', 'Regulatory Compliance'],
  realestate: ['Commercial Leasing', 'Property Management', 'Residential Development', 'Proptech', 'Investment Sales', 'Coworking'],
  government: ['Public Services', 'Digital Government', 'Infrastructure', 'Policy Research', 'Open Data', 'Transportation Planning'],
  nonprofit: ['Education Access', 'Climate Action', 'Community Development', 'Digital Inclusion', 'Youth Mentoring', 'Public Health'],
  education: ['Online Learning', 'Professional Certificates', 'Coding Bootcamps', 'Corporate Training', 'Learning Design', 'Research', 'Executive Education'],
  manufacturing: ['Industrial Automation', 'Robotics', 'Precision Machining', 'Lean Manufacturing', 'Electric Vehicles', 'Additive Manufacturing', 'Quality Engineering'],
  media: ['Video Production', 'Brand Identity', 'Podcasting', 'Motion Graphics', 'Editorial', 'UX Design', 'Documentary'],
}

/** What a company of the cluster does, for descriptions: `[offering, customers]`. */
export const OFFERINGS: Readonly<Record<Cluster, readonly (readonly [string, string])[]>> = {
  tech: [
    ['a data platform', 'analytics and engineering teams'],
    ['developer tools', 'software teams of every size'],
    ['cloud infrastructure software', 'platform and SRE teams'],
    ['AI assistants', 'customer support organisations'],
    ['security software', 'enterprises and the public sector'],
    ['workflow automation', 'operations teams'],
  ],
  finance: [
    ['payment infrastructure', 'online businesses'],
    ['wealth management services', 'families and foundations'],
    ['business banking', 'small and mid-sized companies'],
    ['insurance products', 'individuals and businesses'],
    ['growth capital', 'founders building category-defining companies'],
  ],
  health: [
    ['connected care tools', 'hospitals and clinics'],
    ['diagnostic tests', 'laboratories and physicians'],
    ['therapies for rare diseases', 'patients and their families'],
    ['clinical trial software', 'biotech and pharma sponsors'],
  ],
  marketing: [
    ['brand and performance campaigns', 'ambitious consumer brands'],
    ['content studios', 'B2B marketing teams'],
  ],
  consulting: [
    ['strategy and transformation programmes', 'leadership teams'],
    ['operations consulting', 'industrial and logistics companies'],
  ],
  people: [
    ['recruiting and executive search', 'high-growth companies'],
    ['HR advisory services', 'people teams'],
  ],
  logistics: [
    ['freight and fulfilment services', 'retailers and manufacturers'],
    ['supply chain software', 'shippers and carriers'],
  ],
  energy: [
    ['solar and storage projects', 'utilities and commercial sites'],
    ['EV charging networks', 'cities and fleet operators'],
  ],
  retail: [
    ['everyday products', 'customers who care how things are made'],
    ['food and drink', 'grocers and restaurants'],
  ],
  legal: [
    ['legal advice', 'startups, scale-ups and established companies'],
  ],
  realestate: [
    ['workplaces and homes', 'tenants, investors and communities'],
  ],
  government: [
    ['public services', 'residents and businesses'],
  ],
  nonprofit: [
    ['programmes and grants', 'underserved communities'],
  ],
  education: [
    ['online courses and certificates', 'working professionals'],
  ],
  manufacturing: [
    ['industrial automation systems', 'manufacturers worldwide'],
    ['precision components', 'automotive and aerospace customers'],
  ],
  media: [
    ['video, design and editorial work', 'brands and publishers'],
  ],
}

/** Company size buckets as the platform reports them; the last is open-ended. */
export const SIZE_BUCKETS: readonly { start: number; end: number; weight: number }[] = [
  { start: 2, end: 10, weight: 18 },
  { start: 11, end: 50, weight: 24 },
  { start: 51, end: 200, weight: 20 },
  { start: 201, end: 500, weight: 12 },
  { start: 501, end: 1000, weight: 9 },
  { start: 1001, end: 5000, weight: 9 },
  { start: 5001, end: 10000, weight: 4 },
  // "10,001+" is open-ended: records show it without an end, so this one is never emitted.
  { start: 10001, end: 1000000, weight: 4 },
]

export const COMPANY_TYPE_LABELS = {
  PUBLIC_COMPANY: 'Public Company',
  PRIVATELY_HELD: 'Privately Held',
  SELF_EMPLOYED: 'Self-Employed',
  SELF_OWNED: 'Self-Owned',
  PARTNERSHIP: 'Partnership',
  GOVERNMENT_AGENCY: 'Government Agency',
  NON_PROFIT: 'Nonprofit',
  EDUCATIONAL: 'Educational',
} as const

export const HQ_DESCRIPTIONS = ['Headquarters', 'HQ', 'Head office', 'Main office', 'Global headquarters'] as const

export const SHOWCASE_SUFFIXES = ['Cloud', 'for Developers', 'for Startups', 'Research', 'Careers', 'Labs', 'Enterprise'] as const
