/** Issue 36: one public, one CIDR-restricted and two private clusters in two VPCs (the synth, lint and limits tests share it). */
export const VPC_A = 'vpc-0aaaaaaaaaaaaaaa1';
export const VPC_B = 'vpc-0bbbbbbbbbbbbbbb2';
const vpc = (vpcId: string, subnets: string[], sg: string) => ({
  vpcId,
  subnetIds: subnets,
  clusterSecurityGroupId: sg,
});
export const MIXED_CLUSTERS = {
  clusters: [
    { name: 'public-eu' },
    {
      name: 'cidr-eu',
      vpc: vpc(VPC_A, ['subnet-0aaaaaaaaaaaaaa01', 'subnet-0aaaaaaaaaaaaaa02'], 'sg-0aaaaaaaaaaaaaa01'),
    },
    { name: 'private-eu', vpc: vpc(VPC_A, ['subnet-0aaaaaaaaaaaaaa03'], 'sg-0aaaaaaaaaaaaaa02') },
    { name: 'private-b', vpc: vpc(VPC_B, ['subnet-0bbbbbbbbbbbbbb01'], 'sg-0bbbbbbbbbbbbbb01') },
  ],
};
