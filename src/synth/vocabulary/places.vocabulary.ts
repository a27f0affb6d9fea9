/**
 * Countries, cities and the names people there tend to carry. Hand-picked rather than drawn from
 * faker's locales: a profile's city, region, country code, postal code format, languages and name all
 * have to agree with each other, which faker's independent generators cannot promise.
 */

export interface City {
  readonly name: string
  /** State, region or county, as the platform prints it after the city. */
  readonly area: string
  /** The city's own name where it differs, for local institutions ("Technische Universität München"). */
  readonly local?: string
}

export interface Region {
  /** ISO 3166-1 alpha-2. */
  readonly code: string
  readonly country: string
  /** Share of the member population. */
  readonly weight: number
  readonly cities: readonly City[]
  /** Name culture(s) of people living there, by share. */
  readonly cultures: readonly (readonly [NameCulture, number])[]
  /** Languages spoken natively there (first = most common). */
  readonly languages: readonly string[]
  /** Postal code shape: `#` a digit, `A` an upper-case letter. */
  readonly postal: string
  /** Top-level domain for local company websites. */
  readonly tld: string
}

export type NameCulture =
  | 'en'
  | 'de'
  | 'fr'
  | 'es'
  | 'pt'
  | 'in'
  | 'nl'
  | 'sv'
  | 'ja'
  | 'ng'
  | 'pl'
  | 'it'
  | 'ar'
  | 'zh'
  | 'ke'

const c = (name: string, area: string, local?: string): City => (local === undefined ? { name, area } : { name, area, local })

export const REGIONS: readonly Region[] = [
  {
    code: 'US', country: 'United States', weight: 34, postal: '#####', tld: 'com', languages: ['English'],
    cultures: [['en', 70], ['es', 8], ['in', 8], ['zh', 5], ['ng', 2], ['de', 2], ['ar', 2], ['it', 3]],
    cities: [
      c('San Francisco', 'California'), c('New York', 'New York'), c('Seattle', 'Washington'), c('Austin', 'Texas'),
      c('Boston', 'Massachusetts'), c('Chicago', 'Illinois'), c('Denver', 'Colorado'), c('Atlanta', 'Georgia'),
      c('Los Angeles', 'California'), c('Raleigh', 'North Carolina'), c('Miami', 'Florida'), c('Minneapolis', 'Minnesota'),
      c('Pittsburgh', 'Pennsylvania'), c('Salt Lake City', 'Utah'), c('Washington', 'District of Columbia'),
      c('San Jose', 'California'), c('Portland', 'Oregon'), c('Nashville', 'Tennessee'),
    ],
  },
  {
    code: 'GB', country: 'United Kingdom', weight: 8, postal: 'AA# #AA', tld: 'co.uk', languages: ['English'],
    cultures: [['en', 75], ['in', 10], ['pl', 4], ['ng', 4], ['ar', 3], ['it', 2], ['fr', 2]],
    cities: [
      c('London', 'England'), c('Manchester', 'England'), c('Edinburgh', 'Scotland'), c('Bristol', 'England'),
      c('Cambridge', 'England'), c('Leeds', 'England'), c('Birmingham', 'England'), c('Glasgow', 'Scotland'),
    ],
  },
  {
    code: 'IN', country: 'India', weight: 12, postal: '######', tld: 'in', languages: ['Hindi', 'Tamil', 'Telugu', 'Marathi', 'Kannada'],
    cultures: [['in', 100]],
    cities: [
      c('Bengaluru', 'Karnataka'), c('Mumbai', 'Maharashtra'), c('Hyderabad', 'Telangana'), c('Pune', 'Maharashtra'),
      c('Chennai', 'Tamil Nadu'), c('Gurugram', 'Haryana'), c('New Delhi', 'Delhi'), c('Noida', 'Uttar Pradesh'),
    ],
  },
  {
    code: 'DE', country: 'Germany', weight: 6, postal: '#####', tld: 'de', languages: ['German'],
    cultures: [['de', 85], ['pl', 4], ['it', 4], ['ar', 3], ['en', 4]],
    cities: [
      c('Berlin', 'Berlin'), c('Munich', 'Bavaria', 'München'), c('Hamburg', 'Hamburg'), c('Frankfurt am Main', 'Hesse'),
      c('Cologne', 'North Rhine-Westphalia', 'Köln'), c('Stuttgart', 'Baden-Württemberg'), c('Düsseldorf', 'North Rhine-Westphalia'),
    ],
  },
  {
    code: 'FR', country: 'France', weight: 5, postal: '#####', tld: 'fr', languages: ['French'],
    cultures: [['fr', 88], ['ar', 6], ['es', 3], ['it', 3]],
    cities: [
      c('Paris', 'Île-de-France'), c('Lyon', 'Auvergne-Rhône-Alpes'), c('Toulouse', 'Occitanie'),
      c('Nantes', 'Pays de la Loire'), c('Bordeaux', 'Nouvelle-Aquitaine'), c('Lille', 'Hauts-de-France'),
    ],
  },
  {
    code: 'CA', country: 'Canada', weight: 5, postal: 'A#A #A#', tld: 'ca', languages: ['English', 'French'],
    cultures: [['en', 60], ['fr', 15], ['in', 10], ['zh', 10], ['ar', 5]],
    cities: [
      c('Toronto', 'Ontario'), c('Vancouver', 'British Columbia'), c('Montreal', 'Quebec'), c('Ottawa', 'Ontario'),
      c('Calgary', 'Alberta'), c('Waterloo', 'Ontario'),
    ],
  },
  {
    code: 'NL', country: 'Netherlands', weight: 3, postal: '#### AA', tld: 'nl', languages: ['Dutch'],
    cultures: [['nl', 85], ['en', 5], ['de', 5], ['ar', 5]],
    cities: [c('Amsterdam', 'North Holland'), c('Rotterdam', 'South Holland'), c('Utrecht', 'Utrecht'), c('Eindhoven', 'North Brabant')],
  },
  {
    code: 'ES', country: 'Spain', weight: 3, postal: '#####', tld: 'es', languages: ['Spanish', 'Catalan'],
    cultures: [['es', 95], ['en', 5]],
    cities: [c('Madrid', 'Community of Madrid'), c('Barcelona', 'Catalonia'), c('Valencia', 'Valencian Community'), c('Seville', 'Andalusia', 'Sevilla')],
  },
  {
    code: 'BR', country: 'Brazil', weight: 4, postal: '#####-###', tld: 'com.br', languages: ['Portuguese'],
    cultures: [['pt', 95], ['ja', 2], ['it', 3]],
    cities: [c('São Paulo', 'São Paulo'), c('Rio de Janeiro', 'Rio de Janeiro'), c('Belo Horizonte', 'Minas Gerais'), c('Florianópolis', 'Santa Catarina')],
  },
  {
    code: 'AU', country: 'Australia', weight: 3, postal: '####', tld: 'com.au', languages: ['English'],
    cultures: [['en', 75], ['zh', 10], ['in', 10], ['it', 5]],
    cities: [c('Sydney', 'New South Wales'), c('Melbourne', 'Victoria'), c('Brisbane', 'Queensland'), c('Perth', 'Western Australia')],
  },
  {
    code: 'SG', country: 'Singapore', weight: 2, postal: '######', tld: 'sg', languages: ['English', 'Mandarin', 'Malay'],
    cultures: [['zh', 60], ['in', 20], ['en', 20]],
    cities: [c('Singapore', 'Singapore')],
  },
  {
    code: 'SE', country: 'Sweden', weight: 2, postal: '### ##', tld: 'se', languages: ['Swedish'],
    cultures: [['sv', 90], ['ar', 5], ['en', 5]],
    cities: [c('Stockholm', 'Stockholm County'), c('Gothenburg', 'Västra Götaland County'), c('Malmö', 'Skåne County')],
  },
  {
    code: 'NG', country: 'Nigeria', weight: 2, postal: '######', tld: 'com.ng', languages: ['Yoruba', 'Igbo', 'Hausa'],
    cultures: [['ng', 100]],
    cities: [c('Lagos', 'Lagos State'), c('Abuja', 'Federal Capital Territory')],
  },
  {
    code: 'JP', country: 'Japan', weight: 2, postal: '###-####', tld: 'jp', languages: ['Japanese'],
    cultures: [['ja', 100]],
    cities: [c('Tokyo', 'Tokyo'), c('Osaka', 'Osaka')],
  },
  {
    code: 'MX', country: 'Mexico', weight: 2, postal: '#####', tld: 'com.mx', languages: ['Spanish'],
    cultures: [['es', 100]],
    cities: [c('Mexico City', 'Mexico City'), c('Guadalajara', 'Jalisco'), c('Monterrey', 'Nuevo León')],
  },
  {
    code: 'AE', country: 'United Arab Emirates', weight: 2, postal: '', tld: 'ae', languages: ['Arabic'],
    cultures: [['ar', 45], ['in', 35], ['en', 15], ['fr', 5]],
    cities: [c('Dubai', 'Dubai'), c('Abu Dhabi', 'Abu Dhabi')],
  },
  {
    code: 'IE', country: 'Ireland', weight: 2, postal: 'A## A#A#', tld: 'ie', languages: ['English', 'Irish'],
    cultures: [['en', 80], ['pl', 8], ['in', 7], ['pt', 5]],
    cities: [c('Dublin', 'County Dublin'), c('Cork', 'County Cork'), c('Galway', 'County Galway')],
  },
  {
    code: 'PL', country: 'Poland', weight: 2, postal: '##-###', tld: 'pl', languages: ['Polish'],
    cultures: [['pl', 100]],
    cities: [c('Warsaw', 'Masovian Voivodeship'), c('Kraków', 'Lesser Poland Voivodeship'), c('Wrocław', 'Lower Silesian Voivodeship')],
  },
  {
    code: 'IT', country: 'Italy', weight: 2, postal: '#####', tld: 'it', languages: ['Italian'],
    cultures: [['it', 100]],
    cities: [c('Milan', 'Lombardy', 'Milano'), c('Rome', 'Lazio', 'Roma'), c('Turin', 'Piedmont', 'Torino')],
  },
  {
    code: 'KE', country: 'Kenya', weight: 1, postal: '#####', tld: 'co.ke', languages: ['Swahili'],
    cultures: [['ke', 100]],
    cities: [c('Nairobi', 'Nairobi County'), c('Mombasa', 'Mombasa County')],
  },
  {
    code: 'CH', country: 'Switzerland', weight: 1, postal: '####', tld: 'ch', languages: ['German', 'French', 'Italian'],
    cultures: [['de', 60], ['fr', 25], ['it', 15]],
    cities: [c('Zurich', 'Zurich'), c('Geneva', 'Geneva'), c('Basel', 'Basel-City')],
  },
]

/** Given names and surnames per culture; `en` is filled from faker's English locale at run time. */
export interface NamePool {
  readonly female: readonly string[]
  readonly male: readonly string[]
  readonly last: readonly string[]
}

export const NAME_POOLS: Readonly<Record<Exclude<NameCulture, 'en'>, NamePool>> = {
  de: {
    female: ['Anna', 'Lena', 'Katharina', 'Julia', 'Sophie', 'Laura', 'Hannah', 'Lea', 'Miriam', 'Sabine', 'Franziska', 'Johanna', 'Carolin', 'Nina', 'Stefanie', 'Theresa'],
    male: ['Lukas', 'Jonas', 'Felix', 'Maximilian', 'Tobias', 'Florian', 'Stefan', 'Matthias', 'Jan', 'Sebastian', 'Moritz', 'Niklas', 'Philipp', 'Andreas', 'Christoph', 'Markus'],
    last: ['Müller', 'Schmidt', 'Schneider', 'Fischer', 'Weber', 'Meyer', 'Wagner', 'Becker', 'Hoffmann', 'Schäfer', 'Koch', 'Richter', 'Klein', 'Wolf', 'Neumann', 'Schwarz', 'Zimmermann', 'Krüger', 'Hartmann', 'Lange'],
  },
  fr: {
    female: ['Camille', 'Léa', 'Manon', 'Chloé', 'Inès', 'Claire', 'Juliette', 'Élodie', 'Mathilde', 'Pauline', 'Sarah', 'Émilie', 'Margaux', 'Lucie', 'Charlotte'],
    male: ['Lucas', 'Hugo', 'Louis', 'Antoine', 'Thomas', 'Nicolas', 'Julien', 'Maxime', 'Alexandre', 'Guillaume', 'Romain', 'Mathieu', 'Pierre', 'Théo', 'Baptiste'],
    last: ['Martin', 'Bernard', 'Dubois', 'Thomas', 'Robert', 'Richard', 'Petit', 'Durand', 'Leroy', 'Moreau', 'Simon', 'Laurent', 'Lefebvre', 'Michel', 'Garcia', 'Fontaine', 'Rousseau', 'Girard', 'Bonnet', 'Mercier'],
  },
  es: {
    female: ['María', 'Lucía', 'Sofía', 'Paula', 'Carmen', 'Laura', 'Elena', 'Marta', 'Valentina', 'Daniela', 'Gabriela', 'Andrea', 'Isabel', 'Ximena', 'Fernanda'],
    male: ['Alejandro', 'Javier', 'Carlos', 'Diego', 'Pablo', 'Sergio', 'Manuel', 'Jorge', 'Andrés', 'Luis', 'Miguel', 'Santiago', 'Mateo', 'Rodrigo', 'Emilio'],
    last: ['García', 'Rodríguez', 'Martínez', 'López', 'Sánchez', 'Pérez', 'González', 'Fernández', 'Gómez', 'Díaz', 'Hernández', 'Ruiz', 'Moreno', 'Jiménez', 'Álvarez', 'Romero', 'Torres', 'Navarro', 'Vargas', 'Castillo'],
  },
  pt: {
    female: ['Ana', 'Beatriz', 'Mariana', 'Juliana', 'Camila', 'Larissa', 'Fernanda', 'Gabriela', 'Carolina', 'Letícia', 'Renata', 'Patrícia', 'Aline', 'Bianca'],
    male: ['João', 'Pedro', 'Gabriel', 'Lucas', 'Rafael', 'Bruno', 'Thiago', 'Felipe', 'Gustavo', 'Rodrigo', 'Leonardo', 'André', 'Marcelo', 'Vinícius'],
    last: ['Silva', 'Santos', 'Oliveira', 'Souza', 'Rodrigues', 'Ferreira', 'Alves', 'Pereira', 'Lima', 'Gomes', 'Costa', 'Ribeiro', 'Martins', 'Carvalho', 'Almeida', 'Barbosa', 'Rocha', 'Nascimento'],
  },
  in: {
    female: ['Priya', 'Ananya', 'Sneha', 'Divya', 'Kavya', 'Pooja', 'Aishwarya', 'Neha', 'Shruti', 'Deepika', 'Meera', 'Ishita', 'Lakshmi', 'Nandini', 'Riya', 'Swati'],
    male: ['Rahul', 'Arjun', 'Vikram', 'Rohan', 'Aditya', 'Karthik', 'Siddharth', 'Aman', 'Nikhil', 'Varun', 'Abhishek', 'Pranav', 'Suresh', 'Harsh', 'Manish', 'Ravi'],
    last: ['Sharma', 'Patel', 'Iyer', 'Reddy', 'Gupta', 'Nair', 'Singh', 'Kumar', 'Menon', 'Rao', 'Joshi', 'Desai', 'Mehta', 'Chatterjee', 'Banerjee', 'Pillai', 'Agarwal', 'Krishnan', 'Verma', 'Kulkarni'],
  },
  nl: {
    female: ['Emma', 'Sanne', 'Lotte', 'Anouk', 'Femke', 'Eva', 'Iris', 'Maud', 'Fleur', 'Noor', 'Marloes', 'Esther'],
    male: ['Daan', 'Bram', 'Sem', 'Thijs', 'Joost', 'Ruben', 'Lars', 'Jeroen', 'Niels', 'Bas', 'Koen', 'Pieter'],
    last: ['de Jong', 'Jansen', 'de Vries', 'van den Berg', 'van Dijk', 'Bakker', 'Janssen', 'Visser', 'Smit', 'Meijer', 'de Boer', 'Mulder', 'de Groot', 'Bos', 'Vos', 'Peters'],
  },
  sv: {
    female: ['Elsa', 'Maja', 'Ebba', 'Linnea', 'Sara', 'Karin', 'Ingrid', 'Frida', 'Astrid', 'Johanna', 'Emelie', 'Sofia'],
    male: ['Erik', 'Lars', 'Oskar', 'Anders', 'Johan', 'Gustav', 'Nils', 'Henrik', 'Axel', 'Viktor', 'Magnus', 'Fredrik'],
    last: ['Andersson', 'Johansson', 'Karlsson', 'Nilsson', 'Eriksson', 'Larsson', 'Olsson', 'Persson', 'Svensson', 'Gustafsson', 'Lindberg', 'Lindqvist', 'Berg', 'Sjöberg'],
  },
  ja: {
    female: ['Yuki', 'Haruka', 'Aoi', 'Sakura', 'Mei', 'Yui', 'Rina', 'Emi', 'Naomi', 'Ayaka', 'Misaki', 'Keiko'],
    male: ['Hiroshi', 'Takeshi', 'Kenji', 'Yuto', 'Haruto', 'Daiki', 'Sho', 'Ryo', 'Kazuki', 'Takumi', 'Satoshi', 'Naoki'],
    last: ['Sato', 'Suzuki', 'Takahashi', 'Tanaka', 'Watanabe', 'Ito', 'Yamamoto', 'Nakamura', 'Kobayashi', 'Kato', 'Yoshida', 'Yamada', 'Sasaki', 'Matsumoto'],
  },
  ng: {
    female: ['Chiamaka', 'Ngozi', 'Adaeze', 'Funmilayo', 'Aisha', 'Temitope', 'Oluwaseun', 'Blessing', 'Chioma', 'Folake', 'Zainab', 'Amaka'],
    male: ['Chinedu', 'Oluwaseyi', 'Emeka', 'Tunde', 'Ibrahim', 'Obinna', 'Femi', 'Kelechi', 'Babajide', 'Uche', 'Segun', 'Musa'],
    last: ['Okafor', 'Adeyemi', 'Okonkwo', 'Balogun', 'Eze', 'Ogunleye', 'Nwosu', 'Bello', 'Adebayo', 'Okoro', 'Abubakar', 'Olawale', 'Chukwu', 'Afolabi'],
  },
  pl: {
    female: ['Anna', 'Katarzyna', 'Magdalena', 'Agnieszka', 'Zuzanna', 'Aleksandra', 'Joanna', 'Natalia', 'Monika', 'Karolina', 'Ewa'],
    male: ['Piotr', 'Krzysztof', 'Tomasz', 'Paweł', 'Michał', 'Jakub', 'Marcin', 'Łukasz', 'Mateusz', 'Bartosz', 'Kamil'],
    last: ['Nowak', 'Kowalski', 'Wiśniewski', 'Wójcik', 'Kowalczyk', 'Kamiński', 'Lewandowski', 'Zieliński', 'Szymański', 'Woźniak', 'Dąbrowski', 'Kozłowski'],
  },
  it: {
    female: ['Giulia', 'Chiara', 'Francesca', 'Sara', 'Martina', 'Alessia', 'Elisa', 'Valentina', 'Federica', 'Silvia', 'Beatrice'],
    male: ['Marco', 'Alessandro', 'Luca', 'Matteo', 'Francesco', 'Andrea', 'Davide', 'Simone', 'Giovanni', 'Lorenzo', 'Riccardo'],
    last: ['Rossi', 'Russo', 'Ferrari', 'Esposito', 'Bianchi', 'Romano', 'Colombo', 'Ricci', 'Marino', 'Greco', 'Bruno', 'Gallo', 'Conti', 'De Luca'],
  },
  ar: {
    female: ['Fatima', 'Layla', 'Mariam', 'Noor', 'Yasmin', 'Salma', 'Huda', 'Rania', 'Dina', 'Leila', 'Amira'],
    male: ['Omar', 'Ahmed', 'Youssef', 'Karim', 'Khalid', 'Tariq', 'Hassan', 'Ali', 'Mohammed', 'Samir', 'Rami'],
    last: ['Haddad', 'Al-Mansouri', 'Khalil', 'Nasser', 'Saleh', 'Hamdan', 'Farouk', 'Aziz', 'Rahman', 'El-Sayed', 'Mansour', 'Barakat'],
  },
  zh: {
    female: ['Wei', 'Mei Ling', 'Xinyi', 'Jia Hui', 'Hui Min', 'Li Na', 'Yan', 'Shu Fen', 'Qian', 'Jing'],
    male: ['Wei Jie', 'Jun', 'Hao', 'Zhi Wei', 'Kai', 'Ming', 'Jian', 'Yong', 'Cheng', 'Jia Hao'],
    last: ['Tan', 'Lim', 'Lee', 'Ng', 'Wong', 'Chen', 'Wang', 'Zhang', 'Liu', 'Goh', 'Chua', 'Ong', 'Koh', 'Huang'],
  },
  ke: {
    female: ['Wanjiru', 'Achieng', 'Njeri', 'Akinyi', 'Wambui', 'Nyambura', 'Atieno', 'Faith', 'Grace', 'Mercy'],
    male: ['Kamau', 'Otieno', 'Mwangi', 'Kipchoge', 'Ochieng', 'Njoroge', 'Brian', 'Kevin', 'Dennis', 'Collins'],
    last: ['Kamau', 'Otieno', 'Mwangi', 'Wanjiku', 'Odhiambo', 'Kiprono', 'Mutua', 'Njoroge', 'Onyango', 'Cheruiyot', 'Kariuki', 'Wafula'],
  },
}

export const LANGUAGE_PROFICIENCIES = [
  'Native or bilingual proficiency',
  'Full professional proficiency',
  'Professional working proficiency',
  'Limited working proficiency',
  'Elementary proficiency',
] as const

export const EXTRA_LANGUAGES = ['Spanish', 'French', 'German', 'Mandarin', 'Portuguese', 'Italian', 'Japanese', 'Arabic', 'Dutch', 'Hindi'] as const

/** Local street names for office addresses; `numberFirst` says where the house number goes. */
export const STREETS: Readonly<Record<string, { readonly numberFirst: boolean; readonly names: readonly string[] }>> = {
  IN: { numberFirst: true, names: ['MG Road', 'Residency Road', 'Brigade Road', 'Nehru Place', 'Bandra Kurla Complex', 'Cyber City', 'HITEC City', 'Anna Salai'] },
  JP: { numberFirst: true, names: ['Marunouchi', 'Roppongi', 'Shibuya', 'Umeda', 'Otemachi'] },
  DE: { numberFirst: false, names: ['Friedrichstraße', 'Torstraße', 'Leopoldstraße', 'Schillerstraße', 'Hauptstraße', 'Kaiserstraße', 'Bahnhofstraße', 'Am Sandtorkai'] },
  CH: { numberFirst: false, names: ['Bahnhofstrasse', 'Rue du Rhône', 'Limmatquai', 'Seestrasse'] },
  FR: { numberFirst: true, names: ['Rue de Rivoli', 'Boulevard Haussmann', 'Rue Oberkampf', 'Avenue de l\'Opéra', 'Rue de la République', 'Quai de la Rapée'] },
  ES: { numberFirst: false, names: ['Calle de Alcalá', 'Paseo de la Castellana', 'Carrer de Balmes', 'Gran Vía', 'Calle de Serrano'] },
  MX: { numberFirst: false, names: ['Paseo de la Reforma', 'Avenida Insurgentes Sur', 'Avenida Chapultepec', 'Calle Montes Urales'] },
  IT: { numberFirst: false, names: ['Via Torino', 'Corso Buenos Aires', 'Via Nazionale', 'Via Roma', 'Corso Vittorio Emanuele II'] },
  NL: { numberFirst: false, names: ['Keizersgracht', 'Herengracht', 'Stationsplein', 'Coolsingel', 'Vijzelstraat'] },
  BR: { numberFirst: false, names: ['Avenida Paulista', 'Rua Oscar Freire', 'Avenida Brigadeiro Faria Lima', 'Rua da Consolação'] },
  PL: { numberFirst: false, names: ['ulica Marszałkowska', 'ulica Prosta', 'Aleje Jerozolimskie', 'ulica Grzybowska'] },
  SE: { numberFirst: false, names: ['Drottninggatan', 'Kungsgatan', 'Sveavägen', 'Regeringsgatan'] },
}

/**
 * ISO 639-1 codes of the languages profiles are commonly written in. A region whose main language is
 * missing here (Hindi, Yoruba, Swahili…) writes its professional profiles in English.
 */
export const PROFILE_LANGUAGE_CODES: Readonly<Record<string, string>> = {
  English: 'en', German: 'de', French: 'fr', Spanish: 'es', Portuguese: 'pt', Dutch: 'nl', Swedish: 'sv',
  Japanese: 'ja', Arabic: 'ar', Polish: 'pl', Italian: 'it', Mandarin: 'zh',
}
