// The national NFS-e's public consultation address, apart from the DANFSe drawing so the note's view can name
// it without loading the PDF renderer (pdfkit) at start.

/**
 * The public consultation of the national portal, opened by the QR code. The national environment's API
 * documentation does not state this address; it is the portal's consultation page with the key as parameter.
 */
export const NFSE_CONSULTA_PUBLICA = 'https://www.nfse.gov.br/consultapublica';

export function nfseQrCodeUrl(chave: string): string {
  return `${NFSE_CONSULTA_PUBLICA}?chave=${chave}`;
}
