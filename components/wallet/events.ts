// Components outside the wallet islands (plain forms, buttons) ask the header's wallet island
// to open the connect / sign-in modal through this window event, so they need no wallet code.
export const OPEN_SIGN_IN_EVENT = "marketplace:open-sign-in";

export function requestSignIn(): void {
  window.dispatchEvent(new CustomEvent(OPEN_SIGN_IN_EVENT));
}
