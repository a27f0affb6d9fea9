/** A key's endpoints as SQLite keeps them: a JSON array of the paths after /api/v1/, NULL for every one. */
export const toEndpointsText = (endpoints: readonly string[] | null): string | null => (endpoints === null ? null : JSON.stringify(endpoints))

export const fromEndpointsText = (text: string | null): string[] | null => (text === null ? null : (JSON.parse(text) as string[]))
