export const handler = async (event: unknown) => ({ received: event !== undefined });
