#!/usr/bin/perl
# The scenario with OpenAPI::Client (Debian's libopenapi-client-perl), a
# validating client in another language: it reads the contract the server
# serves at /openapi.json, checks every request against it before sending, and
# sends bodies as JSON. Reads the scenario's input (see scenario.ts) as JSON on
# standard input and prints the report as JSON on standard output.
use strict;
use warnings;
use Mojo::JSON qw(decode_json encode_json true);
use Mojo::URL;
use OpenAPI::Client;

my $input = decode_json(do { local $/; <STDIN> });
my $spec  = Mojo::URL->new($input->{apiUrl})->path('/openapi.json')->to_string;

# One client per user; the credentials travel as HTTP basic authentication.
sub client_for {
  my ($user) = @_;
  my $base = Mojo::URL->new($input->{apiUrl})->userinfo("$user->{email}:$user->{apiKey}");
  return OpenAPI::Client->new($spec, base_url => $base);
}

# Calls an operation and returns its JSON answer, or dies with what went wrong.
sub call {
  my ($client, $operation, $params) = @_;
  my $tx = $client->call($operation => $params);
  my $res = $tx->res;
  die "$operation: " . ($res->code // 'no answer') . ' ' . ($res->body // '') . "\n" if $tx->error or !$res->json or $res->json->{result} ne 'success';
  return $res->json;
}

my ($alice, $bob, $carol) = map { client_for($input->{$_}) } qw(alice bob carol);
my ($alice_id, $bob_id, $carol_id) = map { $input->{$_}{id} } qw(alice bob carol);

my $alice_queue = call($alice, 'register-queue', {body => {event_types => ['message', 'reaction', 'update_message']}});
my $bob_queue   = call($bob, 'register-queue', {body => {event_types => ['message']}});
call($alice, 'subscribe', {body => {subscriptions => [{name => $input->{channel}}], principals => [$bob_id]}});

my $channel_message = call($alice, 'send-message',
  {body => {type => 'stream', to => $input->{channel}, topic => 'generated', content => "Hello from $input->{tag}"}});
my $direct_message = call($alice, 'send-message',
  {body => {type => 'direct', to => [$bob_id, $carol_id], content => "Direct from $input->{tag}"}});

# A user's newest messages in a narrow, as [{id, content}].
sub read_narrow {
  my ($client, $narrow) = @_;
  my $page = call($client, 'get-messages', {anchor => 'newest', num_before => 10, num_after => 0, narrow => encode_json($narrow)});
  return [map { {id => $_->{id}, content => $_->{content}} } @{$page->{messages}}];
}
my $bob_channel  = read_narrow($bob, [{operator => 'channel', operand => $input->{channel}}]);
my $bob_direct   = read_narrow($bob, [{operator => 'dm', operand => [$alice_id, $carol_id]}]);
my $carol_direct = read_narrow($carol, [{operator => 'dm', operand => [$alice_id, $bob_id]}]);

call($bob, 'add-reaction', {message_id => $channel_message->{id}, body => {emoji_name => 'octopus'}});
call($alice, 'update-message', {message_id => $channel_message->{id}, body => {content => "Edited by $input->{tag}"}});
my $edited = call($bob, 'get-message', {message_id => $channel_message->{id}})->{message};

# The events of a queue so far.
sub events_of {
  my ($client, $queue) = @_;
  return call($client, 'get-events', {queue_id => $queue->{queue_id}, last_event_id => -1, dont_block => true})->{events};
}
my $alice_events = events_of($alice, $alice_queue);
my $bob_events   = events_of($bob, $bob_queue);

print encode_json({
  channelMessageId => $channel_message->{id},
  directMessageId  => $direct_message->{id},
  bobChannel       => $bob_channel,
  bobDirect        => $bob_direct,
  carolDirect      => $carol_direct,
  edited           => {
    content   => $edited->{content},
    reactions => [map { {emoji_name => $_->{emoji_name}, user_id => $_->{user_id}} } @{$edited->{reactions}}],
  },
  aliceEvents => [
    map { {type => $_->{type}, (defined $_->{op} ? (op => $_->{op}) : ()), message_id => $_->{message_id} // ($_->{message} ? $_->{message}{id} : undef)} }
      @$alice_events
  ],
  bobEventMessageIds => [map { $_->{message}{id} } grep { $_->{type} eq 'message' } @$bob_events],
});
print "\n";
