/** The dashboard at `/_dashboard`: see docs/dashboard.md. */
export { dashboardEdge, DASHBOARD_PATH } from './dashboard-edge.js';
