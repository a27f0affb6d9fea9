/** The synthetic network: what `pronet seed` and first start use. */
export { NETWORK_SIZES, estimateRecords, planNetwork, type NetworkPlan, type NetworkSize } from './network-plan.ts'
export { generateNetwork, type SynthOptions } from './synthetic-network.ts'
export { seedNetwork, type SeedOptions, type SeedResult } from './seed-network.ts'
