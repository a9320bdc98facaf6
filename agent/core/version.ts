export const agentVersion = '0.1.0';
