/**
 * Reads a preview (a PNG answer) into what a page shows: a data: address, since the
 * console's CSP allows images from data: and not blob:.
 */
export async function previewOf(response: Response): Promise<string> {
  const blob = await response.blob();
  return new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
}
