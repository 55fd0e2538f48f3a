// Route → screen.
import { Cashier } from './cashier/Cashier.tsx';

export function Screen(props: { route: { path: string; parts: string[]; query: URLSearchParams } }) {
  const [first] = props.route.parts;
  switch (first) {
    case undefined:
    case 'caixa':
      return <Cashier />;
    default:
      return <p>Em breve.</p>;
  }
}
