import { createContext, useContext } from 'react';

/** The signed-in person as the server describes them; `can` only hides buttons (the server decides). */
export interface SessionInfo {
  signedIn: true;
  csrf: string;
  user: string;
  name: string;
  roles: string[];
  tenant: string;
  tenants: string[];
  can: { manage: boolean; decide: boolean; review: boolean; explain: boolean };
}

export const SessionContext = createContext<SessionInfo | undefined>(undefined);

export function useSession(): SessionInfo {
  const session = useContext(SessionContext);
  if (session === undefined) throw new Error('useSession outside a signed-in page');
  return session;
}
