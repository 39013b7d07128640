import { parseXML } from '@aws-sdk/xml-builder';

/**
 * The EC2 Query protocol (API version 2016-11-15) for the calls of ./commands.ts: request members
 * flattened into form parameters, XML responses decoded into the SDK's output shapes. Members keep
 * EC2's default naming (request: the member name; response: the wire name with its first letter
 * upper-cased) unless a table below says otherwise; test/unit/ec2-wire.test.ts holds both directions
 * to what @aws-sdk/client-ec2 sends and parses.
 */
export const EC2_API_VERSION = '2016-11-15';

/** Request members whose query name differs from the member name (their `locationName`). */
const QUERY_NAME: Readonly<Record<string, string>> = {
  Filters: 'Filter',
  GroupIds: 'GroupId',
  GroupNames: 'GroupName',
  InstanceIds: 'InstanceId',
  InstanceTypes: 'InstanceType',
  NetworkInterfaceIds: 'NetworkInterfaceId',
  SubnetIds: 'SubnetId',
  UserIdGroupPairs: 'Groups',
  Values: 'Value',
  VpcEndpointIds: 'VpcEndpointId',
};

/** RFC 3986 encoding, as the SDK encodes query keys and values. */
const encode = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function flatten(prefix: string, value: unknown, out: [string, string][]): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) flatten(`${prefix}.${i + 1}`, v, out);
  } else if (value instanceof Date) {
    out.push([prefix, value.toISOString()]);
  } else if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flatten(`${prefix}.${QUERY_NAME[k] ?? k}`, v, out);
  } else {
    out.push([prefix, String(value)]);
  }
}

/** The form-encoded body of one call: `Action`, `Version`, then the input's members. */
export function queryBody(action: string, input: object): string {
  const params: [string, string][] = [
    ['Action', action],
    ['Version', EC2_API_VERSION],
  ];
  for (const [k, v] of Object.entries(input)) flatten(QUERY_NAME[k] ?? k, v, params);
  return params.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
}

/**
 * Response wire names whose member name is not the capitalised wire name. A key `parent/wire`
 * applies inside the element `parent` only (an instance's `groupSet` holds its security groups).
 */
export const MEMBER_NAME: Readonly<Record<string, string>> = {
  associationSet: 'Associations',
  blockDeviceMapping: 'BlockDeviceMappings',
  deletedSubnetCidrReservation: 'DeletedSubnetCidrReservation',
  dnsEntrySet: 'DnsEntries',
  'securityGroupInfo/groupDescription': 'Description',
  groupSet: 'Groups',
  'instancesSet/groupSet': 'SecurityGroups',
  'instancesSet/instanceState': 'State',
  'instancesSet/dnsName': 'PublicDnsName',
  'instancesSet/reason': 'StateTransitionReason',
  'instancesSet/ipAddress': 'PublicIpAddress',
  'ipPermissions/groups': 'UserIdGroupPairs',
  'ipPermissionsEgress/groups': 'UserIdGroupPairs',
  'dnsEntrySet/dnsName': 'DnsName',
  instancesSet: 'Instances',
  instanceTypeSet: 'InstanceTypes',
  ipv4PrefixSet: 'Ipv4Prefixes',
  ipv6AddressesSet: 'Ipv6Addresses',
  ipv6PrefixSet: 'Ipv6Prefixes',
  networkInterfaceIdSet: 'NetworkInterfaceIds',
  networkInterfaceSet: 'NetworkInterfaces',
  privateIpAddressesSet: 'PrivateIpAddresses',
  productCodes: 'ProductCodes',
  reservationSet: 'Reservations',
  routeSet: 'Routes',
  routeTableIdSet: 'RouteTableIds',
  routeTableSet: 'RouteTables',
  securityGroupInfo: 'SecurityGroups',
  securityGroupRuleSet: 'SecurityGroupRules',
  subnetIdSet: 'SubnetIds',
  subnetIpv4CidrReservationSet: 'SubnetIpv4CidrReservations',
  subnetIpv6CidrReservationSet: 'SubnetIpv6CidrReservations',
  subnetSet: 'Subnets',
  tagSet: 'Tags',
  unknownIpPermissionSet: 'UnknownIpPermissions',
  vpcEndpointSet: 'VpcEndpoints',
};

/** Wire names of numbers, booleans and timestamps (everything else is a string, a list or a structure). */
export const NUMBERS: ReadonlySet<string> = new Set([
  'amiLaunchIndex',
  'availableIpAddressCount',
  'code',
  'defaultCores',
  'defaultThreadsPerCore',
  'defaultVCpus',
  'deviceIndex',
  'fromPort',
  'ipv4AddressesPerInterface',
  'ipv6AddressesPerInterface',
  'maximumNetworkCards',
  'maximumNetworkInterfaces',
  'networkCardIndex',
  'sizeInMiB',
  'toPort',
]);
export const BOOLEANS: ReadonlySet<string> = new Set([
  'currentGeneration',
  'defaultForAz',
  'deleteOnTermination',
  'ebsOptimized',
  'enaSupport',
  'ipv6Supported',
  'isEgress',
  'main',
  'mapPublicIpOnLaunch',
  'primary',
  'privateDnsEnabled',
  'requesterManaged',
  'return',
  'sourceDestCheck',
]);
export const TIMESTAMPS: ReadonlySet<string> = new Set(['attachTime', 'creationTimestamp', 'launchTime']);

/** The member name of a wire element inside `parent`. */
export const memberName = (wire: string, parent: string) =>
  MEMBER_NAME[`${parent}/${wire}`] ?? MEMBER_NAME[wire] ?? `${wire[0].toUpperCase()}${wire.slice(1)}`;

type Xml = string | { [k: string]: Xml | Xml[] };

function scalar(wire: string, text: string): unknown {
  if (NUMBERS.has(wire)) return Number(text);
  if (BOOLEANS.has(wire)) return text === 'true';
  if (TIMESTAMPS.has(wire)) return new Date(text);
  return text;
}

/** List wire names that do not end in `Set` (an empty list is an empty element). */
const LISTS: ReadonlySet<string> = new Set([
  'blockDeviceMapping',
  'groups',
  'ipPermissions',
  'ipPermissionsEgress',
  'ipRanges',
  'ipv6Ranges',
  'prefixListIds',
  'productCodes',
  'securityGroupInfo',
]);

/** EC2 lists are an element of `<item>`s: no EC2 structure has a member named `item`. */
const isList = (wire: string, v: Xml | Xml[]) =>
  (typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && 'item' in v) ||
  (v === '' && (wire.endsWith('Set') || LISTS.has(wire)));

/** One element's value, decoded; `wire` is its own name (the list name for list items). */
function decodeValue(wire: string, v: Xml | Xml[]): unknown {
  if (isList(wire, v)) {
    const items = v === '' ? [] : (v as { item: Xml | Xml[] }).item;
    return (Array.isArray(items) ? items : [items]).map((i) => decodeValue(wire, i));
  }
  if (typeof v === 'string') return scalar(wire, v);
  return decodeStruct(wire, v as Record<string, Xml | Xml[]>);
}

function decodeStruct(wire: string, v: Record<string, Xml | Xml[]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, child] of Object.entries(v)) out[memberName(k, wire)] = decodeValue(k, child);
  return out;
}

/** A successful response body → the call's output members and the request id. */
export function decodeResponse(xml: string): { output: Record<string, unknown>; requestId?: string } {
  const doc = parseXML(xml) as Record<string, Xml>;
  const root = Object.values(doc)[0];
  if (typeof root !== 'object' || Array.isArray(root)) return { output: {} };
  const { requestId, xmlns: _ns, ...members } = root as Record<string, Xml | Xml[]>;
  return { output: decodeStruct('', members), requestId: typeof requestId === 'string' ? requestId : undefined };
}

/** An error response body (`<Response><Errors><Error><Code>…`) → code, message and request id. */
export function decodeError(body: string): { code?: string; message?: string; requestId?: string } {
  try {
    const doc = parseXML(body) as { Response?: { Errors?: { Error?: unknown }; RequestID?: string } };
    const errors = doc.Response?.Errors?.Error;
    const first = (Array.isArray(errors) ? errors[0] : errors) as { Code?: string; Message?: string } | undefined;
    return { code: first?.Code, message: first?.Message, requestId: doc.Response?.RequestID };
  } catch {
    return {};
  }
}
