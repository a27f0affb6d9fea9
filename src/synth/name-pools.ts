/**
 * Vocabularies drawn once from a seeded faker. Faker is slow (a call costs microseconds), so it
 * fills pools up front and the hot loops draw from the pools with the fast generator.
 */
// The English entry only: the package's main entry loads every locale it has, about 14 MB of heap
// that each serving process kept for good (and that each full collection had to mark) for pools
// drawn from English alone.
import { faker } from '@faker-js/faker/locale/en'
import { NAME_POOLS, type NameCulture, type NamePool } from './vocabulary/places.vocabulary.ts'

export interface NamePools {
  readonly byCulture: Readonly<Record<NameCulture, NamePool>>
  /** English street names ("Lincoln Road") for offices in English-speaking places. */
  readonly streets: readonly string[]
  /** Surnames for partnerships and firms ("Hahn & Pfeffer LLP"). */
  readonly firmSurnames: readonly string[]
  readonly hobbies: readonly string[]
}

const unique = (items: Iterable<string>): string[] => [...new Set(items)]

export function buildNamePools(seed: number): NamePools {
  // The entry's one instance (English, then the base locale), seeded anew for each build; every
  // draw below happens before this function returns.
  faker.seed(seed)
  const female: string[] = []
  const male: string[] = []
  const last: string[] = []
  // Draw (rather than copy the whole list) so common names stay common and each seed gets its own mix.
  for (let i = 0; i < 600; i++) {
    female.push(faker.person.firstName('female'))
    male.push(faker.person.firstName('male'))
    last.push(faker.person.lastName())
  }
  const streets: string[] = []
  for (let i = 0; i < 300; i++) streets.push(faker.location.street())
  const firmSurnames = unique(Array.from({ length: 200 }, () => faker.person.lastName())).filter((s) => !s.includes('-'))
  const hobbies = [
    'trail running', 'photography', 'baking sourdough', 'chess', 'cycling', 'mentoring students', 'learning Japanese',
    'bouldering', 'jazz piano', 'gardening', 'sailing', 'reading science fiction', 'cooking for friends', 'volunteering at a food bank',
  ]
  return {
    byCulture: {
      en: { female: unique(female), male: unique(male), last: unique(last) },
      ...NAME_POOLS,
    },
    streets: unique(streets),
    firmSurnames,
    hobbies,
  }
}
